"""nogpu_fit.py BATCH [--find] - issue 56's check of the recording's answers
near the card's limit: HF GPT-2 (12 layers, length 1024, fp32, AdamW) one
step at BATCH; with --find, the batch-size finder users write: on
torch.cuda.OutOfMemoryError halve the batch and try again.  Run for real
(nogpu_oom.sh) and recorded without a GPU, each prints the batch it trained
at."""
import sys

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(n_positions=1024)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)


def step(b):
    ids = torch.randint(0, 50257, (b, 1024), device="cuda")
    model(input_ids=ids, labels=ids).loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


batch = int(sys.argv[1])
if "--find" in sys.argv:
    while True:
        try:
            step(batch)
            break
        except torch.OutOfMemoryError:
            opt.zero_grad(set_to_none=True)
            print("out of memory at batch", batch, flush=True)
            batch //= 2
else:
    step(batch)
print("trained at batch", batch, flush=True)
