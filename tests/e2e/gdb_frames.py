"""Run inside gdb (gdb -batch -x gdb_frames.py): writes every thread's
frames as gdb unwinds them to the JSON file named by $GDB_FRAMES_OUT:
[{"tid", "frames": [{"pc", "name", "file", "line", "kind"}]}], innermost
first, kind "normal", "inline", "tailcall" or "sigtramp"."""
import json
import os

import gdb  # noqa: provided by gdb

gdb.execute("set backtrace past-main on")
gdb.execute("set backtrace past-entry on")
gdb.execute("set backtrace limit 200")
KINDS = {gdb.NORMAL_FRAME: "normal", gdb.INLINE_FRAME: "inline", gdb.TAILCALL_FRAME: "tailcall",
         gdb.SIGTRAMP_FRAME: "sigtramp"}
threads = []
for thread in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
    thread.switch()
    frames = []
    frame = gdb.newest_frame()
    while frame is not None and len(frames) < 200:
        sal = frame.find_sal()
        frames.append({"pc": frame.pc(), "name": frame.name(), "kind": KINDS.get(frame.type(), "other"),
                       "file": sal.symtab.filename if sal.symtab else None, "line": sal.line})
        try:
            frame = frame.older()
        except gdb.error:
            break
    threads.append({"tid": thread.ptid[1], "frames": frames})
with open(os.environ["GDB_FRAMES_OUT"], "w") as out:
    json.dump(threads, out)
