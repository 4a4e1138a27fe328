from transformers import TrainingArguments

args = TrainingArguments(output_dir="out", bf16=True, torch_compile=False)
