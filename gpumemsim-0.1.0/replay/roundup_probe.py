# roundup_probe.py - how PyTorch reads roundup_power2_divisions lists (run on a
# GPU machine): a fresh process per setting allocates 300 MiB then 100 MiB and
# prints memory_stats()["allocated_bytes.all.current"]; t/data/roundup-h200.txt
# holds what the H200 printed, t/cli-snapshots.sh checks the simulation on it.
import os, subprocess, sys, json
code = r'''
import torch, json
x = torch.empty(300 * 2**20, dtype=torch.uint8, device="cuda")
y = torch.empty(100 * 2**20, dtype=torch.uint8, device="cuda")
s = torch.cuda.memory_stats()
print(json.dumps({"allocated": s["allocated_bytes.all.current"], "settings": torch._C._accelerator_getAllocatorSettings() if hasattr(torch._C, "_accelerator_getAllocatorSettings") else ""}))
'''
for conf in ["", "roundup_power2_divisions:[256:1,>:8]", "roundup_power2_divisions:[64:1,>:8]", "roundup_power2_divisions:8"]:
    env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF=conf)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    print(conf or "(default)", r.stdout.strip(), r.stderr.strip()[-300:])
