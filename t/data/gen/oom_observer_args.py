"""oom_observer_args.py OUT - what PyTorch's OOM observer is called with when no
memory fraction is set (issue 55: gpumemsim.on_oom read its third argument as
the bytes allocated; PyTorch passes the card's total there, or the fraction's
bytes when one is set).  Fills the card in 2 GiB tensors until the allocator
runs out, keeping the observer's arguments, memory_reserved() and
mem_get_info() at that moment, and the card's total: OUT/oom-observer-args.json."""
import json
import sys

import torch

out = sys.argv[1]
seen = {}


def observer(device, alloc, arg3, arg4):
    free, total = torch.cuda.mem_get_info(device)
    seen.update(device=device, alloc=alloc, arg3=arg3, arg4=arg4,
                reserved=torch.cuda.memory_reserved(device),
                allocated=torch.cuda.memory_allocated(device),
                mem_get_info_free=free, mem_get_info_total=total)


torch._C._cuda_attach_out_of_memory_observer(observer)
props = torch.cuda.get_device_properties(0)
held = []
try:
    while True:
        held.append(torch.empty(2 << 30, dtype=torch.uint8, device="cuda"))
except torch.cuda.OutOfMemoryError as e:
    seen["message"] = str(e)[:400]
seen["total_memory"] = props.total_memory
seen["device_name"] = props.name
seen["torch"] = torch.__version__
seen["tensors"] = len(held)
with open(out + "/oom-observer-args.json", "w") as f:
    json.dump(seen, f, indent=1)
print(json.dumps(seen))
