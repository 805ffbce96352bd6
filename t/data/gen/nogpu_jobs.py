"""nogpu_jobs.py - the jobs recorded both ways for issue 56 (a real run on the
GPU, and gpumemsim's recording without one), written as a user writes them:
the model built on the CPU, moved with .cuda(), autocast, AdamW, two steps.

    python3 nogpu_jobs.py MODEL SIZE [STEPS]

MODEL: gpt2 (fp32), gpt2-bf16, llama (bf16, SDPA), bert, vit (timm),
resnet50 (torchvision), lora (peft on GPT-2), generate (GPT-2 inference).
SIZE is the batch, or for gpt2*/llama/lora/generate the sequence length."""
import sys

import torch

model_name, size = sys.argv[1], int(sys.argv[2])
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 2
torch.manual_seed(0)
bf16 = model_name in ("gpt2-bf16", "llama")


def gpt2(layers=6):
    from transformers import GPT2Config, GPT2LMHeadModel
    return GPT2LMHeadModel(GPT2Config(n_layer=layers, n_embd=768, n_head=12, n_positions=2048))


if model_name in ("gpt2", "gpt2-bf16", "lora", "generate"):
    model = gpt2()
    if model_name == "lora":
        from peft import LoraConfig, get_peft_model
        model = get_peft_model(model, LoraConfig(r=8, target_modules=["c_attn"], fan_in_fan_out=True))
    batch = {"input_ids": torch.randint(0, 50257, (4, size))}
    batch["labels"] = batch["input_ids"]
elif model_name == "llama":
    from transformers import LlamaConfig, LlamaForCausalLM
    model = LlamaForCausalLM(LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=4,
                                         num_attention_heads=16, num_key_value_heads=4,
                                         vocab_size=32000, max_position_embeddings=4096,
                                         attn_implementation="sdpa"))
    batch = {"input_ids": torch.randint(0, 32000, (2, size))}
    batch["labels"] = batch["input_ids"]
elif model_name == "bert":
    from transformers import BertConfig, BertForSequenceClassification
    model = BertForSequenceClassification(BertConfig(num_hidden_layers=6, num_labels=3))
    batch = {"input_ids": torch.randint(0, 30522, (size, 128)),
             "attention_mask": torch.ones(size, 128, dtype=torch.long),
             "labels": torch.randint(0, 3, (size,))}
elif model_name == "vit":
    import timm
    model = timm.create_model("vit_small_patch16_224", pretrained=False)
    x, y = torch.randn(size, 3, 224, 224), torch.randint(0, 1000, (size,))
elif model_name == "resnet50":
    import torchvision
    model = torchvision.models.resnet50()
    x, y = torch.randn(size, 3, 224, 224), torch.randint(0, 1000, (size,))
else:
    sys.exit("unknown model " + model_name)

model = model.cuda()
if model_name == "generate":
    model.eval()
    with torch.no_grad():
        out = model.generate(batch["input_ids"].cuda(), max_new_tokens=16, do_sample=False,
                             pad_token_id=0)
    print("generated", tuple(out.shape))   # to the end: no sequence stopped early
    sys.exit(0)

opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
for step in range(steps):
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
        if model_name in ("vit", "resnet50"):
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        else:
            loss = model(**{k: v.cuda() for k, v in batch.items()}).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
