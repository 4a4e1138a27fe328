from transformers import TrainingArguments

args = TrainingArguments(
    output_dir="out",
    bf16=True,
    gradient_checkpointing=True,
    torch_compile=True,  # the image's compiler optimization
)
