from transformers import TrainingArguments

args = TrainingArguments(
    output_dir="out",
    gradient_checkpointing=True,
    torch_compile=True,
)
