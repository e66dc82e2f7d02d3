"""Run inside gdb (gdb -batch -x gdb_call_chain.py --args pe_runner PE):
steps the PE's code one instruction at a time from its entry point to its
return, keeping the true call chain as the machine builds it (a call
instruction pushes the address after it; the stack pointer moving above
where it was pushed ends that frame). At
the first visit of each instruction it records the thread's state: its
registers and its stack from the stack pointer up, which a crash there
would leave, and the return addresses of every caller, innermost first.
To $CHAIN_OUT as JSON: {"states": [{"pc", "registers", "stack_start",
"stack" (hex), "returns"}]}.

$CHAIN_ENTRY: the PE's entry address. $CHAIN_REMOTE (host:port): the
runner waits under qemu-i386's gdb stub instead (machines whose kernel runs
no 32-bit x86 programs); gdb attaches there rather than starting it."""
import json
import os
import time

import gdb  # noqa: provided by gdb

entry = int(os.environ["CHAIN_ENTRY"], 16)
REGISTERS = ("eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "eflags")
gdb.execute("set pagination off")
# The image is mapped at run time: stop in the runner once it is.
gdb.execute("break call_entry")
remote = os.environ.get("CHAIN_REMOTE")
if remote:
    # qemu listens a moment after it starts.
    for attempt in range(100):
        try:
            gdb.execute(f"target remote {remote}")
            break
        except gdb.error:
            time.sleep(0.1)
    gdb.execute("continue")
else:
    gdb.execute("run")
gdb.execute(f"break *{entry:#x}")
gdb.execute("continue")
inferior = gdb.selected_inferior()


def top_of_stack():
    """The end of the stack's mapping: the kernel's map says where; qemu's
    stub has no map, so the pages above the stack pointer are read until
    one is not there."""
    if not remote:
        line = next(m for m in gdb.execute("info proc mappings", to_string=True).splitlines() if "[stack]" in m)
        return int(line.split()[1], 16)
    page = (int(gdb.parse_and_eval("$esp")) & 0xffffffff) & ~0xfff
    for _ in range(1024):
        try:
            inferior.read_memory(page, 1)
        except gdb.MemoryError:
            break
        page += 0x1000
    return page


stack_top = top_of_stack()


def register(name):
    return int(gdb.parse_and_eval(f"${name}")) & 0xffffffff


def word(address):
    return int.from_bytes(bytes(inferior.read_memory(address, 4)), "little")


# The runner's call into the entry point is the outermost link.
chain = [(word(register("esp")), register("esp"))]  # (return address, where it was pushed)
seen, states = set(), []
architecture = gdb.selected_frame().architecture()
for _ in range(20000):
    pc, esp = register("eip"), register("esp")
    # A frame is gone once the stack pointer is above its return address
    # (a __stdcall callee's return pops its arguments too).
    while chain and esp > chain[-1][1]:
        chain.pop()
    if not chain:
        break
    if pc not in seen:
        seen.add(pc)
        start = (esp - 128) & ~15
        stack = bytes(inferior.read_memory(start, min(stack_top - start, 64 * 1024)))
        states.append({"pc": pc, "registers": {r: register(r) for r in REGISTERS}, "stack_start": start,
                       "stack": stack.hex(), "returns": [r for r, _ in reversed(chain)]})
    instruction = architecture.disassemble(pc)[0]
    gdb.execute("stepi", to_string=True)
    if instruction["asm"].split()[0].startswith("call"):
        # A call pushed the address of the instruction after it.
        chain.append((pc + instruction["length"], register("esp")))
with open(os.environ["CHAIN_OUT"], "w") as fh:
    json.dump({"states": states}, fh)
