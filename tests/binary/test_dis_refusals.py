"""Hostile and odd binaries: spvcoop dis prints what spirv-dis prints, and refuses what spirv-dis
refuses with spirv-dis's message (its text after 'error: N: '), never another exception.

Each case was first measured with spirv-dis 2025.5; the test compares with it again on every run."""
from __future__ import annotations

import re
import struct
import tempfile
from pathlib import Path

import pytest

from conftest import run_tool
from spvcoop import SpvError
from spvcoop.binary.reader import read_binary
from spvcoop.binary.disassembler import disassemble


def op(opcode: int, *words: int) -> list[int]:
    return [((len(words) + 1) << 16) | opcode, *words]


def s(text: str | bytes) -> list[int]:
    """A literal string's words (bytes as given, so they need not be UTF-8)."""
    b = text if isinstance(text, bytes) else text.encode()
    b += b"\0" * (4 - len(b) % 4)
    return list(struct.unpack(f"<{len(b) // 4}I", b))


def mod(*insts: list[int], bound: int = 100, version: int = 0x10600, gen: int = 0x70000) -> bytes:
    w = [0x07230203, version, gen, bound, 0]
    for i in insts:
        w += i
    return struct.pack(f"<{len(w)}I", *w)


CAP = op(17, 1)  # OpCapability Shader
MM = op(14, 0, 1)  # OpMemoryModel Logical GLSL450
I32=op(21,1,32,1)
def body(*x):
    return [op(19,9), op(33,10,9), op(54,9,11,0,10), op(248,20), *x, op(248,21),op(253),op(56)]
CASES = {
 
 'int 0 1 + const': mod(CAP, MM, op(21, 1, 0, 1), op(43, 1, 2, 5)),
 'int 0 0 + const nolit': mod(CAP, MM, op(21, 1, 0, 0), op(43, 1, 2)),
 'int 1 1 consts': mod(CAP, MM, op(21, 1, 1, 1), op(43, 1, 2, 5), op(43,1,3,0xffffffff), op(43,1,4,1), op(43,1,5,0)),
 'int 3 0 consts': mod(CAP, MM, op(21, 1, 3, 0), op(43, 1, 2, 5), op(43,1,3,0xffffffff)),
 'int 3 1 consts': mod(CAP, MM, op(21, 1, 3, 1), op(43, 1, 2, 5), op(43,1,3,0xffffffff), op(43,1,4,3), op(43,1,5,4),
                       op(43,1,6,0xfffffffc)),
 'int 16 1': mod(CAP, MM, op(21, 1, 16, 1), op(43, 1, 2, 0xffff), op(43, 1, 3, 0xffffffff), op(43,1,4,0x12348000)),
 'int 8 1': mod(CAP, MM, op(21, 1, 8, 1), op(43, 1, 2, 0xff), op(43, 1, 3, 0xffffff80)),
 'int 48 1': mod(CAP, MM, op(21, 1, 48, 1), op(43, 1, 2, 0xffffffff, 0xffff), op(43, 1, 3, 0xffffffff, 0xffffffff),
                 op(43,1,4,5,0x80000000)),
 'int 48 0': mod(CAP, MM, op(21, 1, 48, 0), op(43, 1, 2, 0xffffffff, 0xffff), op(43, 1, 3, 0xffffffff, 0xffffffff)),
 'int 96': mod(CAP, MM, op(21, 1, 96, 0), op(43, 1, 2, 1,2,3)),
 'int 33 short': mod(CAP, MM, op(21,1,33,1), op(43, 1, 2, 5), op(43,1,3,0xffffffff)),
 'int 4294967295': mod(CAP, MM, op(21, 1, 4294967295, 0), op(43, 1, 2, 5)),
 'int 4294967295 nolit': mod(CAP, MM, op(21, 1, 4294967295, 0), op(43, 1, 2)),
 'int 2^21': mod(CAP, MM, op(21, 1, 1<<21, 0), op(43, 1, 2, 5)),
 'int 2^21+32': mod(CAP, MM, op(21, 1, (1<<21)+32, 0), op(43, 1, 2, 5)),
 'float 0': mod(CAP, MM, op(22, 1, 0), op(43, 1, 2, 5)),
 'float 8': mod(CAP, MM, op(22, 1, 8), op(43, 1, 2, 5)),
 'float 3': mod(CAP, MM, op(22, 1, 3), op(43, 1, 2, 5)),
 'float 24': mod(CAP, MM, op(22, 1, 24), op(43, 1, 2, 5)),
 'float 96': mod(CAP, MM, op(22, 1, 96), op(43, 1, 2,1,2,3)),
 'f16 junk': mod(CAP, MM, op(22, 1, 16), op(43, 1, 2, 0xffff3c00), op(43, 1, 3, 0x12345678)),
 'f32 bf16': mod(CAP, MM, op(22, 1, 32, 0), op(43, 1, 2, 0x12343f80)),
 'f64 bf16': mod(CAP, MM, op(22, 1, 64, 0), op(43, 1, 2, 0x3f80, 0x1234)),
 'f64 e5m2': mod(CAP, MM, op(22, 1, 64, 4215), op(43, 1, 2, 0x3c, 0)),
 'f8 e5m2': mod(CAP, MM, op(22, 1, 8, 4215), op(43, 1, 2, 0x12343c)),
 'f16 e4m3': mod(CAP, MM, op(22, 1, 16, 4214), op(43, 1, 2,0x3f80)),
 'f8 bf16': mod(CAP, MM, op(22, 1, 8, 0), op(43, 1, 2,0x3f80)),
 'f33': mod(CAP, MM, op(22, 1, 33), op(43, 1, 2, 0, 0x3ff00000)),
 'float enc 99': mod(CAP, MM, op(22, 1, 8, 99), op(43, 1, 2,0x3f)),
 'specconst i3': mod(CAP, MM, op(21, 1, 3, 1), op(50, 1, 2, 7)),
 'switch 64': mod(CAP, MM, op(21,1,64,0),
                  *body(op(43,1,2,5,0), op(251,2,20,7,0,21,0xffffffff,1,22), op(248,22),op(253))),
 'switch 16s': mod(CAP, MM, op(21,1,16,1),
                   *body(op(43,1,2,5), op(251,2,20,0xffff,21,0xffffffff,22), op(248,22),op(253))),
 'switch 96': mod(CAP, MM, op(21,1,96,0), *body(op(43,1,2,5,0,0), op(251,2,20,7,0,0,21))),
 'switch odd': mod(CAP, MM, op(21,1,32,0), op(43,1,2,5), op(251, 2, 3, 4)),
 'switch sel undefined': mod(CAP, MM, *body(op(251,2,20,7,21))),
 'switch sel is type': mod(CAP, MM, I32, *body(op(251,1,20,7,21))),
 'switch sel bool': mod(CAP, MM, op(20,1), op(41,1,2), *body(op(251,2,20,7,21))),
 'switch sel float': mod(CAP, MM, op(22,1,32), op(43,1,2,0), *body(op(251,2,20,7,21))),
 'switch sel label': mod(CAP, MM, *body(op(251,20,20,7,21))),
 'const bool': mod(CAP, MM, op(20,1), op(43,1,2,5)),
 'const undefined type': mod(CAP, MM, op(43,1,2,5)),
 'const type is not type': mod(CAP, MM, I32, op(43,1,2,5), op(43,2,3,5)),
 'const vec type': mod(CAP, MM, I32, op(23,2,1,2), op(43,2,3,5)),
 'const i64 at eof': mod(CAP, MM, op(21,1,64,0), [(5<<16)|43, 1, 2, 5]),
 'id 0 result': mod(CAP, MM, op(21,0,32,1)),
 'id 0 operand': mod(CAP, MM, I32, op(32,2,7,0)),
 'id 0 fast': mod(CAP, MM, I32, op(19,3), op(33,4,3,0)),
 'type id 0': mod(CAP, MM, op(1,0,3)),
 'id >= bound': mod(CAP, MM, I32, op(32,2,7,1), bound=2),
 'cap 4294967295': mod(op(17,4294967295), MM),
 'cap 999': mod(op(17,999), MM),
 'mem access bad bit': mod(CAP, MM, I32, op(32,2,7,1), op(59,2,3,7), op(61,1,4,3,0x80000000)),
 'mask two invalid': mod(CAP, MM, I32, op(32,2,7,1), op(59,2,3,7), op(61,1,4,3,0x40|0x100)),
 'func control bad bit': mod(CAP, MM, op(19,1), op(33,2,1), op(54,1,3,0x100,2), op(248,4), op(253), op(56)),
 'mem access missing param': mod(CAP, MM, I32, op(32,2,7,1), op(59,2,3,7), op(61,1,4,3,0x2)),
 'decorate bad': mod(CAP, MM, I32, op(71,1,99999)),
 'builtin bad': mod(CAP, MM, I32, op(71,1,11,99999)),
 'decorate missing param': mod(CAP, MM, I32, op(71,1,11)),
 'exec mode bad': mod(CAP, MM, op(16,1,99999)),
 'sourcelang bad': mod(CAP, MM, op(3,99999,1)),
 'addressing bad': mod(CAP, op(14, 99, 1)),
 'opcode unknown': mod(CAP, MM, op(9999)),
 'string no nul': mod(CAP, MM, op(5,1,0x61616161)),
 'string extra': mod(CAP, MM, op(5,1,*s('ab'),7)),
 'string at eof': mod(CAP, MM, [(5<<16)|5, 1, 0x61616161]),
 'bad utf8': mod(CAP, MM, op(5, 1, *s(b'a\xff\xfeb\xc3'))),
 'bad utf8 OpString': mod(CAP, MM, op(7, 1, *s(b'a\xff\xfeb\xc3'))),
 'bad utf8 name': mod(CAP, MM, I32, op(5, 1, *s(b'\xe9x\xff'))),
 'utf8 name': mod(CAP, MM, I32, op(5, 1, *s('é€x'))),
 'unknown ext import': mod(CAP, op(11,1,*s('Foo.bar')), MM),
 'nonsemantic ext import': mod(CAP, op(11,1,*s('NonSemantic.Foo')), MM),
 'extinst set not import': mod(CAP, MM, I32, op(43,1,2,5), op(12,1,3,2,31,2)),
 'extinst bad number': mod(CAP, op(11,9,*s('GLSL.std.450')), MM, I32, op(43,1,2,5), op(12,1,3,9,9999,2)),
 'extinst nonsem big number': mod(CAP, op(11,9,*s('NonSemantic.Foo')), MM, I32, op(43,1,2,5), op(12,1,3,9,9999,2)),
 'specconstop bad': mod(CAP, MM, I32, op(43,1,2,5), op(52,1,3,9999,2)),
 'specconstop Load': mod(CAP, MM, I32, op(43,1,2,5), op(52,1,3,61,2)),
 'dup result': mod(CAP, MM, I32, op(43,1,2,5), op(43,1,2,6)),
 'opphi odd': mod(CAP, MM, op(245, 1, 2, 3, 4, 5)),
 'opphi 0': mod(CAP, MM, op(245, 1, 2)),
 'gmd odd': mod(CAP, MM, op(75, 1, 2, 3, 4)),
 'gmd ok': mod(CAP, MM, op(75, 1, 2, 3)),
 'count runs past': bytes.fromhex('03022307 00000100 00000700 05000000 00000000 11000200'),
 'capability at eof': bytes.fromhex('03022307 00000100 00000700 05000000 00000000 11000300 01000000'),
 'count 0': bytes.fromhex('03022307 00000100 00000700 05000000 00000000 00000000'),
 'version 1.7': mod(CAP, MM, version=0x10700),
 'version 1.6.1': mod(CAP, MM, version=0x10601),
 'gen 0': mod(CAP, MM, gen=0), 'gen 5': mod(CAP, MM, gen=5), 'gen 1<<16': mod(CAP, MM, gen=1<<16),
 'gen 47<<16': mod(CAP, MM, gen=47<<16), 'gen 99<<16': mod(CAP, MM, gen=99<<16),
 'magic ff': struct.pack('<5I', 0xffffffff, 0x10000, 0, 5, 0),
 '4 bytes': struct.pack('<I', 0x07230203), 'empty': b'',
}
CASES.update({f"generator tool {t}": mod(CAP, MM, gen=(t << 16) | 3) for t in range(0, 64)})


def spirv_dis(data: bytes, *flags: str):
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "in.spv"
        f.write_bytes(data)
        return run_tool("spirv-dis", *flags, str(f))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_dis_agrees_with_spirv_dis(name: str) -> None:
    data = CASES[name]
    for flags in ((), ("--raw-id",)):
        ref = spirv_dis(data, *flags)
        try:
            ours = disassemble(read_binary(data, "in.spv"), raw_ids=bool(flags))
        except SpvError as e:
            assert ref.returncode != 0, f"spirv-dis accepts what we refuse: {e}"
            message = re.sub(r"^error: (\d+: )?", "", ref.stderr.decode().strip())
            assert e.diagnostics[0].message == message
            assert e.diagnostics[0].span.word >= 0
            continue
        assert ref.returncode == 0, f"spirv-dis refuses what we print: {ref.stderr.decode()}"
        # strings that are not UTF-8 come back as surrogate escapes: spirv-dis prints the raw bytes
        assert ours.encode("utf-8", "surrogateescape") == ref.stdout
