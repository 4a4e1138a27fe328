from transformers import TrainingArguments

args = TrainingArguments(
    output_dir="out",
    bf16=True,
    gradient_checkpointing=False,
    torch_compile=True,
)
