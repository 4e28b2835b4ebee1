"""Errors of the CUDA C front end, reported the way a compiler reports them: ``file:line:col: error: ...``."""
from __future__ import annotations


from ..errors import LabsimError, UnsupportedError, _fmt


class CudaError(LabsimError):
    """A problem in the CUDA source, found at compile time or while interpreting it.

    ``where`` carries ``file``, ``line`` and ``col`` (1-based, columns in characters) and, when known,
    ``source``: the text of the offending line, shown under the message with a caret.
    """

    def _format(self) -> str:
        w = self.where
        head = w.get("file", "<source>")
        if "line" in w:
            head += f":{w['line']}"
            if "col" in w:
                head += f":{w['col']}"
        text = f"{head}: error: {self.message}"
        extra = [f"{k} {_fmt(w[k])}" for k in ("kernel", "block", "thread", "lane", "array", "index") if k in w]
        if extra:
            text += f" [{', '.join(extra)}]"
        src = w.get("source")
        if src is not None:
            text += "\n    " + src.rstrip("\n").replace("\t", " ")
            if "col" in w:
                text += "\n    " + " " * (int(w["col"]) - 1) + "^"
        return text


class CudaSyntaxError(CudaError):
    """The source does not parse (a tree-sitter ERROR or MISSING node), or a directive is malformed."""


class CudaCompileError(CudaError):
    """A semantic error a C++ compiler would also report (undeclared name, bad operand types, ...)."""


class CudaUnsupportedError(CudaError, UnsupportedError):
    """Valid CUDA C++ that labsim does not interpret (inline asm, function pointers, new, ...), named."""


class CudaRuntimeError(CudaError):
    """A fault while interpreting a kernel that the engine does not report itself (division by zero, ...)."""


class CudaArgumentError(CudaError):
    """Arguments given to ``Program.launch``/``Program.call`` that do not fit the function's parameters."""
