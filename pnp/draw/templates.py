"""The sandboxed Jinja environment that turns a card into its list of drawing elements.

A template (templates/<game>/<name>.j2) renders to YAML: a list of elements (see
templates/README.md). Every `{{ expression }}` is written out as one quoted YAML value
(JSON flow syntax), so a card name with `:`, `#`, quotes or `<&>` cannot break the
YAML and a list or mapping can be passed whole. Templates run in Jinja's immutable
sandbox with StrictUndefined: they cannot reach Python internals, cannot change the
card database, and a misspelt field is an error, not an empty string.

Every failure is a `TemplateError` whose message is one line naming the template file
and line: `templates/xo/character.j2:12: 'dict object' has no attribute 'atack'`.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from types import CodeType
from typing import Any

from jinja2 import StrictUndefined, Undefined, UndefinedError
from jinja2.utils import missing as _NO_OWNER
from markupsafe import Markup

from pnp.draw.budget import check_measure
from pnp.draw.budget import install as bound_filters
from pnp.draw.sandbox import BUDGET, check_printf
from pnp.draw.sandbox import BoundedSandbox as _BoundedSandbox

# Characters YAML refuses or folds (line separators) even inside quotes; written as \\uXXXX
# escapes instead. The pattern (a charset beyond Latin-1, a millisecond to compile) is
# compiled only for a value that may hold one from U+0100 up (`_yaml_value`).
_YAML_UNPRINTABLE = "[\x7f-\x9f\u2028\u2029\ufffe\uffff\ud800-\udfff]"
_SIZE = r"[0-9.]+\s*x\s*[0-9.]+\s*(?:mm)?"
_DESIGN = re.compile(r"\{#-?\s*design:\s*(" + _SIZE + r"(?:\s*,\s*" + _SIZE + r")*)\s*-?#\}")


class TemplateError(Exception):
    """A template that does not load, render, or produce a valid element list."""


class _Missing(UndefinedError):
    """An undefined variable (`owner` is jinja2's `missing`, _NO_OWNER) or a field a mapping lacks,
    with what was looked up (for the did-you-mean of `_undefined_message`)."""

    def __init__(self, message, owner, name):
        super().__init__(message)
        self.owner, self.missing = owner, name


class _FieldUndefined(StrictUndefined):
    """StrictUndefined whose error is a `_Missing`."""

    __slots__ = ()

    def __init__(self, hint=None, obj=_NO_OWNER, name=None, exc=None):
        super().__init__(hint, obj, name, lambda message: _Missing(message, obj, name))


def confined(path: Path, folders: list[Path]) -> Path:
    """`path` resolved (symlinks followed); TemplateError when it leaves every one of the
    (resolved) template `folders` or is no regular file: a template may read only the
    templates folders, as images and fonts may read only the project folder."""
    from pnp.draw.template_folders import inside

    real = path.resolve()
    if not any(inside(real, f) for f in folders):
        raise TemplateError(f"{_shown_path(path, folders)}: template file leaves the "
                            "templates folders (a symlink pointing elsewhere?); refused")
    return real


def _shown_path(path: Path, folders: list[Path]) -> str:
    """`templates/x-statix/leak.j2`: where the file is, never where it points."""
    for folder in folders:
        try:
            return f"templates/{path.relative_to(folder).as_posix()}"
        except ValueError:
            continue
    return path.name


def read_template(path: Path, folders: list[Path]) -> str:
    """The text of the template file `path`, confined to `folders`, bounded in size,
    never blocking on a FIFO."""
    return _read_confined(path, folders)[0]


def _read_confined(path: Path, folders: list[Path]) -> tuple[str, Path]:
    """(`read_template`'s text, the path it was read from: `path` resolved)."""
    from carddb import read_limited
    from carddb.limits import MAX_TEMPLATE_BYTES

    real = confined(path, folders)
    try:
        return read_limited(real, MAX_TEMPLATE_BYTES).decode("utf-8"), real
    except UnicodeDecodeError:
        raise TemplateError(f"{_shown_path(path, folders)}: template file is not UTF-8 "
                            "text") from None
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise TemplateError(f"{_shown_path(path, folders)}: template file cannot be read: "
                            f"{reason}") from None


def _confined_loader(folders: list[Path], read: Callable[[Path], tuple[str, Path, float]]):
    """A Jinja loader over `folders` (first match wins) that refuses files outside them;
    `read(path)`: a file's text, resolved path and mtime (`Templates._read`)."""
    import os

    from jinja2 import BaseLoader, TemplateNotFound
    from jinja2.loaders import split_template_path

    class ConfinedLoader(BaseLoader):
        def get_source(self, environment, template):
            pieces = split_template_path(template)
            for folder in folders:
                path = folder.joinpath(*pieces)
                if not os.path.lexists(path):
                    continue
                source, real, mtime = read(path)
                return source, str(path), lambda r=real, m=mtime: os.path.getmtime(r) == m
            raise TemplateNotFound(template)

    return ConfinedLoader()


def _finalize(value: Any) -> str:
    """Each {{ }} becomes exactly one YAML value. A macro's output (or `| safe`) is
    Markup and is written as it is: that is how macros emit whole elements."""
    text = _finalized(value)
    BUDGET.wrote(len(text))
    return text


def _finalized(value: Any) -> str:
    kind = type(value)
    if kind is int:                             # the common cases first: speed matters
        return str(value)
    if kind is float and math.isfinite(value):
        text = f"{value:.4f}".rstrip("0").rstrip(".")
        return text if text not in ("", "-0") else "0"
    if kind is str:
        if _plain_safe(value):
            return '"' + value + '"'
    elif kind is Markup:
        return value
    else:
        check_measure(value, "a {{ }} value")      # before it is written out (budget.py)
    return _yaml_value(value)


# A string that needs no escaping inside double quotes (JSON and YAML alike).
_PLAIN_SAFE = r'[^"\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff-\uffff\ud800-\udfff]*\Z'
# The characters below U+0100 it refuses: a quote, a backslash, the control characters.
_ESCAPED = re.compile(r'["\\\x00-\x1f\x7f-\x9f]')
# ... and those below U+0100 _YAML_UNPRINTABLE writes as escapes
_C1 = re.compile(r"[\x7f-\x9f]")


@functools.cache
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _plain_safe(value: str) -> bool:
    """Whether `_PLAIN_SAFE` matches `value`. Every character it refuses from U+0100 up
    is U+2028 or above, so a value without one of `_ESCAPED`'s and whose largest
    character is below U+2028 (nearly every one) is plain: only a value reaching that
    far is matched against the pattern itself, a charset beyond Latin-1 that costs a
    millisecond to compile in every process."""
    if _ESCAPED.search(value):
        return False
    if value.isascii() or max(value) < "\u2028":
        return True
    return _pattern(_PLAIN_SAFE).match(value) is not None


def _yaml_value(value: Any) -> str:
    if isinstance(value, Undefined):
        str(value)                          # StrictUndefined raises here, with its name
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        if math.isfinite(value):
            text = f"{value:.4f}".rstrip("0").rstrip(".")
            return text if text not in ("", "-0") else "0"
        return json.dumps(str(value))
    if isinstance(value, int):
        return str(value)
    text = json.dumps(value, ensure_ascii=False, default=str)
    if not _C1.search(text) and (text.isascii() or max(text) < "\u2028"):
        return text                     # none of _YAML_UNPRINTABLE's characters in it
    return _pattern(_YAML_UNPRINTABLE).sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def signed(value: Any) -> str:
    """+2, -1, 0: how modifiers are printed."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        return str(value)
    return f"+{number}" if number > 0 else str(number)


def icon_markup(name: Any) -> str:
    """`{{ card.superpower | icon }}` -> the inline-icon markup `{icon:energy}`."""
    return "{icon:" + str(name) + "}"


def pairs(mapping: Any, pattern: str = "%s %s", sep: str = "  ") -> str:
    """`{{ card.powers | pairs("{icon:%s} **%s**") }}`: each key/value through a
    printf-style pattern, joined by `sep` (printf cannot reach attributes)."""
    check_printf(pattern)
    items = mapping.items() if isinstance(mapping, dict) else mapping
    return sep.join(pattern % (key, value) for key, value in items)


@functools.lru_cache(maxsize=1024)
def tint(color: Any, amount: float, base: Any = "#ffffff") -> str:
    """`{{ "#d7262e" | tint(0.16) }}`: the colour at `amount` strength over `base` (white
    by default), as an opaque colour. Cheaper to print than `alpha`, which is drawn live."""
    from pnp.draw.colour import hex_bytes

    try:
        pairs = zip(hex_bytes(color), hex_bytes(base), strict=True)
    except ValueError as exc:
        raise ValueError(f"tint: {exc}") from None
    a = max(0.0, min(1.0, float(amount)))
    mixed = (round(c * a + b * (1 - a)) for c, b in pairs)
    return "#" + "".join(f"{v:02x}" for v in mixed)


def escape_markup(text: Any) -> str:
    """Make text print literally inside marked-up text (for names with * or {)."""
    return "".join("\\" + ch if ch in "*{}\\" else ch for ch in str(text))


def _yaml_code_generator(*args: Any, **kwargs: Any) -> Any:
    """The environment's code generator: its class is made, and Jinja's compiler
    imported, only when a template is compiled (a build renders from the bytecode cache)."""
    return _code_generator()(*args, **kwargs)


@functools.cache
def _code_generator():
    """Output code for YAML: every {{ }} value goes through finalize (constants too:
    Jinja would fold and HTML-escape them at compile time, making `{{ "a: b" }}` look
    like macro output) and is never HTML-escaped afterwards."""
    from jinja2 import nodes
    from jinja2.compiler import CodeGenerator

    class YamlValueGenerator(CodeGenerator):
        def _output_child_to_const(self, node, frame, finalize):
            if isinstance(node, nodes.TemplateData):
                return super()._output_child_to_const(node, frame, finalize)
            return str(finalize.const(node.as_const(frame.eval_ctx)))

        def visit_Concat(self, node, frame):
            # `~` results are bounded in size (pnp.draw.sandbox), each operand measured
            # before it is made text (a list of long texts is not written out first)
            if frame.eval_ctx.volatile:
                join = "(markup_join if context.eval_ctx.volatile else str_join)"
            else:
                join = "markup_join" if frame.eval_ctx.autoescape else "str_join"
            self.write(f"environment.pnp_concat({join}((")
            for arg in node.nodes:
                self.write("environment.pnp_operand(")
                self.visit(arg, frame)
                self.write("), ")
            self.write(")))")

        def _output_child_pre(self, node, frame, finalize):
            # finalize already wrote a YAML value: no HTML escaping after it
            self.write("str(")
            if finalize.src is not None:
                self.write(finalize.src)

    return YamlValueGenerator


# Templates compiled in this process, by (name, sha1 of the source): a second
# environment (the next build of `pnp watch`, another project of a test run) takes the
# code instead of compiling it again. Only the file name in the code depends on where the
# template is (Jinja names the Template and its error frames by it): `_refiled`.
# _bytecode_cache's folder version (this file, Jinja's version) is the same for the
# whole process, so the name and source are the whole key. The oldest go first.
_compiled: dict[tuple[str, str], CodeType] = {}
_COMPILED_KEPT = 256


def _remember(bucket) -> None:
    """Keep `bucket`'s compiled code, when it has some, for the rest of the process."""
    name = getattr(bucket, "name", None)
    if bucket.code is None or name is None:
        return
    _compiled.pop((name, bucket.checksum), None)
    _compiled[name, bucket.checksum] = bucket.code
    if len(_compiled) > _COMPILED_KEPT:
        del _compiled[next(iter(_compiled))]


def _refiled(code: CodeType, filename: str | None) -> CodeType:
    """`code` (a compiled template and the functions in it) as compiled from `filename`
    (Jinja's "<template>" for none)."""
    filename = filename or "<template>"
    if code.co_filename == filename:
        return code
    consts = tuple(_refiled(c, filename) if isinstance(c, CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _bytecode_cache():
    """Compiled templates kept on disk between runs (compiling the six templates of a
    game costs as much as drawing a deck of 80 cards). Jinja checks each entry against
    the template's source (sha1) and the Python version; the folder is named by this
    file, which holds every setting of the environment and its code generator, and by
    Jinja's version. In the load cache's folder (carddb.cache), off when it is off."""
    from carddb import cache

    base = cache.folder()
    if base is None:
        return None
    import hashlib
    import os

    from jinja2 import __version__
    from jinja2.bccache import Bucket, FileSystemBytecodeCache

    class QuietCache(FileSystemBytecodeCache):
        """An unreadable or unwritable cache folder just means compiling again. A
        template this process compiled or read before (the same name, the same source)
        is taken from memory (`_compiled`), its file written when the folder lacks it."""

        def get_bucket(self, environment, name, filename, source):
            """BytecodeCache.get_bucket, the source's checksum looked up in memory first."""
            checksum = self.get_source_checksum(source)
            bucket = Bucket(environment, self.get_cache_key(name, filename), checksum)
            bucket.name = name                  # type: ignore[attr-defined]
            code = _compiled.get((name, checksum))
            if code is None:
                self.load_bytecode(bucket)
            else:
                bucket.code = _refiled(code, filename)
                if not os.path.exists(self._get_cache_filename(bucket)):
                    self.dump_bytecode(bucket)
            _remember(bucket)
            return bucket

        def load_bytecode(self, bucket):
            try:
                super().load_bytecode(bucket)
            except (OSError, ValueError, EOFError):
                bucket.reset()

        def dump_bytecode(self, bucket):
            _remember(bucket)
            try:
                os.makedirs(self.directory, exist_ok=True)
                super().dump_bytecode(bucket)
            except OSError:
                pass

    version = hashlib.sha256(Path(__file__).read_bytes() + __version__.encode()).hexdigest()
    return QuietCache(str(base / f"templates-{version[:16]}"))


class Templates:
    """Loads templates from the project's templates folder, then the bundled one."""

    def __init__(self, folders: list[Path] | None = None, display_root: Path | None = None):
        if not folders:
            from pnp.draw.template_folders import bundled_templates

            folders = [bundled_templates()]
        folders = [Path(f) for f in folders]
        seen: list[Path] = []
        for folder in folders:
            if folder.resolve() not in seen and folder.is_dir():
                seen.append(folder.resolve())
        self.folders = seen
        self.display_root = display_root
        # Each file's text as first read (`_read`): Jinja's loader, the design sizes
        # and the plan keys' template digests (pnp.draw.plan_cache) read it once.
        self._sources: dict[str, tuple[str, Path, float]] = {}
        self.env = _BoundedSandbox(
            loader=_confined_loader(seen, self._read),
            undefined=_FieldUndefined,
            finalize=_finalize,
            # autoescape only so that macro output (Markup) is told apart from values;
            # _finalize has already turned every value into a quoted YAML scalar.
            autoescape=True,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            auto_reload=False,              # templates do not change during a build
            bytecode_cache=_bytecode_cache(),
        )
        self.env.code_generator_class = _yaml_code_generator  # type: ignore[assignment]
        self.env.filters.update(signed=signed, icon=icon_markup, literal=escape_markup, pairs=pairs,
                                tint=tint)
        bound_filters(self.env)                 # these bounded too (pnp/draw/budget.py)
        self.env.globals.update(max=max, min=min, abs=abs, round=round)
        self._cache: dict[str, Any] = {}
        self._designs: dict[str, tuple[tuple[float, float], ...]] = {}
        self._exists: dict[str, bool] = {}

    def _read(self, path: Path) -> tuple[str, Path, float]:
        """The text of the template file `path` (`read_template`), its resolved path and
        its mtime then, read once for the life of these templates: as the templates Jinja
        compiled, which it does not load again (auto_reload=False; pnp.draw.render makes
        new Templates once a template file changes). A file that cannot be read is
        refused each time it is asked for."""
        import os

        found = self._sources.get(str(path))
        if found is None:
            source, real = _read_confined(path, self.folders)
            found = self._sources[str(path)] = (source, real, os.path.getmtime(real))
        return found

    def _syntax_error(self, exc: Any, name: str) -> TemplateError:
        """`templates/x.j2:LINE: template syntax error: ...` (exc: jinja2's
        TemplateSyntaxError, in `name` or a template it includes)."""
        return TemplateError(f"{self.display(exc.filename, exc.name or name)}:{exc.lineno}: "
                             f"template syntax error: {exc.message}")

    def display(self, filename: str | None, name: str) -> str:
        """The path shown in messages: relative to the project when possible."""
        if filename:
            path = Path(filename).resolve()
            roots = [f.parent for f in self.folders] + [self.display_root, Path.cwd()]
            for root in filter(None, roots):
                try:
                    return str(path.relative_to(root.resolve()))
                except ValueError:
                    continue
            return str(path)
        return f"templates/{name}"

    def design_sizes(self, name: str) -> tuple[tuple[float, float], ...]:
        """The sizes a template is drawn for, from a `{# design: 63.5 x 88.9 #}` comment
        in it (mm; several separated by commas: `63.5 x 88.9, 44.45 x 63.5`); empty when
        it has none and draws with W and H directly."""
        if name not in self._designs:
            source = None
            for folder in self.folders:
                path = folder / name
                if path.is_file():
                    source = self._read(path)[0]
                    break
            if source is None:
                self.get(name)                       # raises "template not found"
            match = _DESIGN.search(source or "")
            design = match.group(1) if match else ""
            sizes = re.findall(r"([0-9.]+)\s*x\s*([0-9.]+)", design)
            try:
                self._designs[name] = tuple((float(w), float(h)) for w, h in sizes)
            except ValueError:
                raise TemplateError(f"templates/{name}: design size must be W x H in mm, "
                                    f"got {design!r}") from None
        return self._designs[name]

    def exists(self, name: str) -> bool:
        found = self._exists.get(name)
        if found is None:
            found = self._exists[name] = any((f / name).is_file() for f in self.folders)
        return found

    def get(self, name: str):
        template = self._cache.get(name)
        if template is None:
            from jinja2 import TemplateNotFound, TemplateSyntaxError

            try:
                template = self.env.get_template(name)
            except TemplateSyntaxError as exc:
                raise self._syntax_error(exc, name) from None
            except TemplateNotFound as exc:
                raise TemplateError(
                    f"templates/{name}: template not found"
                    + (f" (needed by {exc.name})" if exc.name != name else "")
                ) from None
            self._cache[name] = template
        return template

    def render(self, name: str, context: dict[str, Any], what: str) -> list[dict[str, Any]]:
        """Render template `name` and parse its YAML into a list of element mappings.
        `what` names the thing drawn (`card 'Anarchist'`) for error messages."""
        return [element for _, element in self.render_elements(name, context, what)]

    def render_elements(self, name: str, context: dict[str, Any], what: str,
                        declared: dict[str, Any] | None = None
                        ) -> list[tuple[str | None, Any]]:
        """Like `render`, each element with its output line when it had one (a key for
        caching what is drawn from it), else None. `declared`: the names each context
        mapping may have beyond those it holds (`{"card": the type's declared fields}`),
        for the did-you-mean of a misspelt field."""
        from jinja2 import TemplateNotFound, TemplateSyntaxError

        template = self.get(name)
        try:
            text = template.render(context)
        except TemplateSyntaxError as exc:         # in an included/imported template
            raise self._syntax_error(exc, name) from None
        except TemplateNotFound as exc:
            raise TemplateError(
                f"{self.display(template.filename, name)}: includes missing template "
                f"{exc.name!r}"
            ) from None
        except Exception as exc:                   # undefined field, sandbox refusal, ...
            where = self._template_line(exc) or (self.display(template.filename, name), None)
            line = f":{where[1]}" if where[1] else ""
            message = (_undefined_message(exc, context, declared or {})
                       or " ".join(str(exc).split()) or type(exc).__name__)
            raise TemplateError(f"{where[0]}{line}: {message} ({what})") from None
        from pnp.draw import fastyaml

        lines = fastyaml.elements(text)
        if lines is not None:
            return self._bounded(lines, template, name, what)
        import yaml  # only for what fastyaml cannot read

        from carddb.yamlsource import YamlProblem

        try:
            data = fastyaml.pyyaml(text)
        except YamlProblem as exc:
            raise TemplateError(
                f"{self.display(template.filename, name)}: output is not usable YAML at "
                f"output line {exc.pos.line}: {exc.message} ({what})") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            detail = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            out_line = ""
            hint = ""
            if mark is not None:
                lines = text.splitlines()
                if 0 <= mark.line < len(lines):
                    out_line = f" at output line {mark.line + 1} `{lines[mark.line].strip()}`"
                    if '""' in lines[mark.line] or "'\"" in lines[mark.line]:
                        hint = " (a {{ }} value is already quoted: do not put it in quotes)"
            raise TemplateError(
                f"{self.display(template.filename, name)}: output is not valid YAML"
                f"{out_line}: {detail}{hint} ({what})"
            ) from None
        if data is None:
            return []
        if not isinstance(data, list):
            raise TemplateError(
                f"{self.display(template.filename, name)}: output must be a YAML list of "
                f"elements, got {type(data).__name__} ({what})"
            )
        return self._bounded([(None, element) for element in data], template, name, what)

    def _bounded(self, elements: list, template: Any, name: str, what: str) -> list:
        from carddb.limits import MAX_ELEMENTS

        if len(elements) > MAX_ELEMENTS:
            raise TemplateError(f"{self.display(template.filename, name)}: output has "
                                f"{len(elements):,} elements, more than {MAX_ELEMENTS:,} "
                                f"(limit) ({what})")
        return elements

    def _template_line(self, exc: BaseException) -> tuple[str, int] | None:
        """The innermost template frame of a rendering error (Jinja rewrites tracebacks
        so that template frames carry the template's file name and line)."""
        found = None
        tb = exc.__traceback__
        while tb is not None:
            filename = tb.tb_frame.f_code.co_filename
            if filename.endswith(".j2"):
                found = (self.display(filename, filename), tb.tb_lineno)
            tb = tb.tb_next
        return found


def _undefined_message(exc: BaseException, context: dict[str, Any],
                       declared: dict[str, Any]) -> str | None:
    """For an undefined name or field, what was misspelt and the nearest name the
    template could have meant: `card has no field 'helth' (did you mean 'health'?)`;
    None for any other error (Jinja's own message names neither the mapping nor what it
    holds: `'dict object' has no attribute 'helth'`)."""
    if not isinstance(exc, _Missing):
        return None
    missing, owner = exc.missing, exc.owner
    while isinstance(owner, Undefined):         # `crad.name`: the first name missing
        missing, owner = owner._undefined_name, owner._undefined_obj
    if not isinstance(missing, str):
        return None
    if owner is _NO_OWNER:                      # a variable the context lacks
        choices = [k for k in context if isinstance(k, str) and not k.startswith("_")]
        return f"{missing!r} is undefined" + _did_you_mean(missing, choices,
                                                            "the template sees")
    if not isinstance(owner, dict):
        return None
    holder = next((k for k, v in context.items() if v is owner), None)
    names = [k for k in owner if isinstance(k, str)]
    fields = declared.get(holder) if holder is not None else None
    extra = [k for k in (fields or ()) if k not in owner]
    label = holder or "the mapping"
    if missing in extra:                        # declared, no value on this card
        return (f"{label} has no value for its optional field {missing!r}: test it first, "
                f"{{% if {label}.get({missing!r}) %}}")
    return f"{label} has no field {missing!r}" + _did_you_mean(missing, names + extra,
                                                              "its fields")


def _did_you_mean(name: str, choices: list[str], what: str) -> str:
    import difflib

    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]!r}?)"
    shown = ", ".join(sorted(choices)[:12]) + (", ..." if len(choices) > 12 else "")
    return f" ({what}: {shown})" if choices else ""
