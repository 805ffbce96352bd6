"""closedloop.py - a recording's answers to the job while it runs: what the
caching allocator would hold now (torch.cuda.memory_reserved() inside a
recording), and whether the allocation just recorded would run out of the
named GPU's memory, so that code which adapts to memory (an except
OutOfMemoryError, a batch-size finder) takes the path it would take on the
card.  Both replay the events so far with the gpumemsim binary; the OOM check
runs only when the live bytes reach a new high past 90 % of what the card
leaves the allocator (an OOM elsewhere, of fragmentation below that, is not
raised: the trace's replay still finds it)."""

import json

CONTEXT = 512 << 20     # the binary's default context overhead (--gpu)
STEP = 1 << 20          # a new high worth a replay: 1 MiB past the last one


def replay_so_far(events, gpu=None):
    """gpumemsim.run over the events so far (on the GPU, less its context,
    when named): its RunResult."""
    from . import run
    lines = ['{"format":"gpumemsim-trace","version":1}'] + [json.dumps(ev) for ev in events]
    return run(("\n".join(lines) + "\n").encode(), gpu=gpu)


class OomCheck:
    """Whether the last allocation runs out of gpu's memory (key, total)."""

    def __init__(self, gpu, total):
        self.gpu = gpu
        self.threshold = (total - CONTEXT) * 9 // 10
        self.checked = 0

    def fails(self, events, live_bytes):
        """The OOM (RunResult.oom) when the last event is the request that
        runs out, else None.  Requests that ran out before are left out of
        the replay: the job caught them and went on without that memory."""
        if live_bytes < self.threshold or live_bytes < self.checked + STEP:
            return None
        self.checked = live_bytes
        asked = [e for e in events if e["op"] != "oom"]
        oom = replay_so_far(asked, self.gpu).oom
        if oom is None or oom.event != len(asked) - 1:
            return None
        self.checked = 0        # what the job asks next, after catching it, is checked
        return oom
