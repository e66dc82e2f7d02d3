"""A shared library of many compile units, each with a large enumeration:
a lot of DWARF for little code (the memory and early-unit tests)."""
import os
import subprocess

UNIT_SOURCE = r"""
#define E10(p) p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9
#define E100(p) E10(p##0), E10(p##1), E10(p##2), E10(p##3), E10(p##4), \
  E10(p##5), E10(p##6), E10(p##7), E10(p##8), E10(p##9)
#define E1000(p) E100(p##0), E100(p##1), E100(p##2), E100(p##3), E100(p##4), \
  E100(p##5), E100(p##6), E100(p##7), E100(p##8), E100(p##9)
#define E10000(p) E1000(p##0), E1000(p##1), E1000(p##2), E1000(p##3), E1000(p##4), \
  E1000(p##5), E1000(p##6), E1000(p##7), E1000(p##8), E1000(p##9)
enum kinds { E10000(e), E10000(f), E10000(g), E10000(h) };
static enum kinds last;
/* static: the same object linked many times is many units, no clash */
__attribute__((used)) static int step(int x) {
  last = (enum kinds)x;
  return x * 3 + 1;
}
"""


def build_many_units(tmp, units, link_flags=()):
    """tmp/libmany.so: units copies of one object, linked with link_flags."""
    source = os.path.join(tmp, "unit.c")
    with open(source, "w") as fh:
        fh.write(UNIT_SOURCE)
    obj = os.path.join(tmp, "unit.o")
    library = os.path.join(tmp, "libmany.so")
    subprocess.run(["gcc", "-g", "-O1", "-c", source, "-o", obj], check=True)
    subprocess.run(["gcc", "-shared", *link_flags, "-o", library] + [obj] * units, check=True)
    return library
