"""Run inside gdb (gdb -batch -x gdb_call_chain.py --args pe_runner PE):
steps the PE's code one instruction at a time from its entry point to its
return, keeping the true call chain as the machine builds it (x86: a call
instruction pushes the address after it, the stack pointer moving above
where it was pushed ends that frame; ARM64: bl/blr link the address after
them, a return ends the frame). At
the first visit of each instruction it records the thread's state: its
registers and its stack from the stack pointer up, which a crash there
would leave, and the return addresses of every caller, innermost first.
To $CHAIN_OUT as JSON: {"states": [{"pc", "registers", "stack_start",
"stack" (hex), "returns"}]}.

$CHAIN_ENTRY: the PE's entry address; $CHAIN_ARCH=arm64 for an ARM64 PE
(the runner built for aarch64), x86 otherwise. $CHAIN_REMOTE (host:port):
the runner waits under qemu-user's gdb stub instead (ARM64 always; x86 on
machines whose kernel runs no 32-bit programs); gdb attaches there rather
than starting it."""
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
    page = (int(gdb.parse_and_eval("$sp")) & ((1 << 64) - 1)) & ~0xfff
    for _ in range(1024):
        try:
            inferior.read_memory(page, 1)
        except gdb.MemoryError:
            break
        page += 0x1000
    return page


stack_top = top_of_stack()


ARM64 = os.environ.get("CHAIN_ARCH") == "arm64"
if ARM64:
    REGISTERS = tuple(f"x{i}" for i in range(31)) + ("sp", "pc", "cpsr")
MASK = (1 << 64) - 1 if ARM64 else 0xffffffff


def register(name):
    return int(gdb.parse_and_eval(f"${name}")) & MASK


def word(address):
    return int.from_bytes(bytes(inferior.read_memory(address, 4)), "little")


# The runner's call into the entry point is the outermost link: x86 pushed
# its return address, ARM64's is in the link register.
if ARM64:
    chain = [(register("x30"), None)]  # (return address, -)
else:
    chain = [(word(register("esp")), register("esp"))]  # (return address, where it was pushed)
seen, states = set(), []
architecture = gdb.selected_frame().architecture()
for _ in range(20000):
    pc, sp = (register("pc"), register("sp")) if ARM64 else (register("eip"), register("esp"))
    # x86: a frame is gone once the stack pointer is above its return
    # address (a __stdcall callee's return pops its arguments too).
    while not ARM64 and chain and sp > chain[-1][1]:
        chain.pop()
    if not chain:
        break
    if pc not in seen:
        seen.add(pc)
        start = (sp - 128) & ~15
        stack = bytes(inferior.read_memory(start, min(stack_top - start, 64 * 1024)))
        states.append({"pc": pc, "registers": {r: register(r) for r in REGISTERS}, "stack_start": start,
                       "stack": stack.hex(), "returns": [r for r, _ in reversed(chain)]})
    instruction = architecture.disassemble(pc)[0]
    mnemonic = instruction["asm"].split()[0]
    gdb.execute("stepi", to_string=True)
    if ARM64:
        # bl/blr put the address after them in x30; a return ends the
        # innermost frame (a tail call's b/br keeps it: the callee returns
        # for both).
        if mnemonic in ("bl", "blr", "blraa", "blrab", "blraaz", "blrabz"):
            chain.append((pc + 4, None))
        elif mnemonic.startswith("ret"):
            chain.pop()
    elif mnemonic.startswith("call"):
        # A call pushed the address of the instruction after it.
        chain.append((pc + instruction["length"], register("esp")))
with open(os.environ["CHAIN_OUT"], "w") as fh:
    json.dump({"states": states}, fh)
