"""The expression language: text -> (SymPy expression, dimension), without eval.

Python's ``ast`` parses the text; only whitelisted node types are accepted, and
SymPy objects are built by hand. Names are resolved by a scope (the model's
variables, catalog values such as ``gpu.memory_bandwidth``, table columns).
Units are checked in the same walk, so a mismatch points at the operator.

    numbers        2, 0.5, 1e-3, 8_030_261_248  (exact rationals)
    unit literals  1[token], 50[GB/s], 2[FLOP]
    operators      + - * / ** ( ), comparisons, and / or / not
    functions      min max ceil floor log exp sqrt abs, if(cond, a, b)
    aggregates     sum(t.col) last(t.col) max(t.col) min(t.col) count(t)
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from fractions import Fraction
from functools import lru_cache

import sympy as sp

from .deadline import OutOfTime
from .errors import LimitError, Loc, ModelError, UnitError
from .expr_calls import Calls
from .limits import LIMITS, number_problem
from .terms import AGGREGATES, ANY, BOOL, FINITE, FUNCTIONS, IF, Scope, Term, Where, held, is_condition, same_dim
from .units import DIMENSIONLESS, BadUnit, dim_str, parse_unit

# fixed limits (compiler/limits.py says what each bounds)
MAX_TEXT = LIMITS["expression_chars"].default
MAX_EXPONENT = LIMITS["power_exponent"].default
MAX_DEPTH = LIMITS["expression_depth"].default  # nesting of the syntax tree; deeper is surely not a formula a person wrote
MAX_DIGITS = LIMITS["constant_digits"].default  # a constant with more decimal digits than this is refused, not computed

__all__ = ["AGGREGATES", "ANY", "BOOL", "FINITE", "FUNCTIONS", "Scope", "Term", "Where", "is_condition", "same_dim", "parse_expression", "split_equation"]

_COMPARE = {ast.Lt: sp.Lt, ast.LtE: sp.Le, ast.Gt: sp.Gt, ast.GtE: sp.Ge, ast.Eq: sp.Eq, ast.NotEq: sp.Ne}


def _prepare(text: str, where: Where) -> str:
    """Rename the keyword `if` before '(' to `IF`; refuse '^' with a hint."""
    if len(text) > MAX_TEXT:
        raise ModelError(f"expression longer than {MAX_TEXT} characters", where(1, 0), "split it into several equations")
    if "if" not in text and "^" not in text:
        return text  # nothing to rename or refuse: most formulas, and tokenizing is a third of reading one
    out = list(text.splitlines(keepends=True)) or [""]
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return text  # let ast.parse report the syntax error with its position
    depth = 0  # inside [...] is a unit, where pint reads ^ as a power
    for tok, nxt in zip(toks, toks[1:] + [None]):
        row, col = tok.start
        if tok.type == tokenize.OP and tok.string in "[]":
            depth += 1 if tok.string == "[" else -1
        if tok.type == tokenize.NAME and tok.string == "if" and nxt is not None and nxt.string == "(":
            line = out[row - 1]
            out[row - 1] = line[:col] + IF + line[col + 2 :]
        elif tok.type == tokenize.OP and tok.string in ("^", "^=") and depth == 0:
            raise ModelError("'^' is not a power here", where(row, col), "write powers as x**2")
    return "".join(out)


def parse_expression(text: str, where: Where, scope: Scope) -> Term:
    raw = str(text)
    lead = len(raw) - len(raw.lstrip(" \t"))
    if lead:  # eval mode refuses leading blanks; keep columns true to the file
        outer = where
        where = lambda line, col: outer(line, col + lead if line == 1 else col)  # noqa: E731
    text = _prepare(raw[lead:].rstrip(), where)
    if "\x00" in text:  # Python 3.11.2's ast.parse raises ValueError here, later ones SyntaxError
        raise ModelError("a NUL character in an expression", where(1, text.index("\x00")), "remove it: expressions are plain text")
    if not text:
        raise ModelError("empty expression", where(1, 0), "write a formula, such as batch / tpot")
    try:
        with warnings.catch_warnings():  # Python's own warnings ("invalid decimal literal") are not for our users
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text, mode="eval")
    except ValueError:  # Python's parser refuses NULs and lone surrogates with ValueError (load_yaml refuses them first)
        raise ModelError("the expression holds a character that is not text", where(1, 0), "remove control characters from the formula") from None
    except (SyntaxError, RecursionError, MemoryError) as e:
        line, col = (e.lineno or 1, max((e.offset or 1) - 1, 0)) if isinstance(e, SyntaxError) else (1, 0)
        msg = f"syntax error: {e.msg}" if isinstance(e, SyntaxError) else "expression nested too deeply"
        raise ModelError(msg, where(line, col), "an expression is like: batch * context * kv_bytes_per_token") from None
    if 2 * len(text) >= MAX_DEPTH:  # each level of the tree takes a character of text, so a short one cannot nest too deeply
        _check_depth(tree.body, where)
    builder = _Builder(text, where, scope)
    try:
        term = builder.visit(tree.body)
    except OutOfTime as e:  # SymPy building an expression can take minutes (a Piecewise collapsing): the limit, here
        raise LimitError(e.message, where(1, 0), e.hint) from None
    except (TypeError, ValueError, ZeroDivisionError, ArithmeticError) as e:
        if isinstance(e, ModelError):
            raise
        raise ModelError(f"this expression has no value: {e}", where(1, 0), "look for a division by zero or the square root of a negative number") from None
    loose = sorted(x.name.split("#")[0] for x in term.expr.free_symbols if "#" in x.name)  # only a sum's index has a '#'
    if loose:  # SymPy folds an if() out of a sum when it builds one (piecewise_fold): with a condition on an inner sum's index
        raise ModelError(
            f"chainc cannot keep this expression's sums whole: an if() on the index '{loose[0]}' of an inner sum, in another sum's bounds or terms, moves out of its sum",
            where(1, 0),
            "write that bound or term with min() or max() instead of if()",
        )
    numbers = term.expr.atoms(*_NUMBER_ATOMS)  # one walk of the tree for both checks
    if not numbers.isdisjoint(_NO_REAL_VALUE):
        raise ModelError("this expression has no finite real value", where(1, 0), "look for a division by zero or the square root of a negative number")
    # each literal and power is bounded, but a product of them is not: 10**300 * 10**300 printed as 'inf'
    big = max((max(abs(n.p), n.q).bit_length() for n in numbers if isinstance(n, sp.Rational)), default=0)
    if big > MAX_DIGITS * 3.33:  # 3.33 bits per decimal digit
        raise ModelError(f"a constant in this expression has about {int(big / 3.32):,} digits", where(1, 0), f"constants are limited to {MAX_DIGITS} digits; use unit prefixes or smaller factors")
    return Term(term.expr, term.dim, tuple(dict.fromkeys(builder.divisors)))


def _check_depth(root: ast.AST, where: Where) -> None:
    """Refuse absurdly deep trees before the recursive walk meets Python's recursion limit.

    Depth first, children in ast.iter_child_nodes' order (written out: a third of the time).
    """
    stack = [(root, 1)]
    pop, push, AST = stack.pop, stack.append, ast.AST
    while stack:
        node, depth = pop()
        if depth > MAX_DEPTH:
            raise ModelError(
                f"expression nested more than {MAX_DEPTH} levels deep",
                where(getattr(node, "lineno", 1), getattr(node, "col_offset", 0)),
                "split it into several equations with named intermediate variables",
            )
        depth += 1
        for name in node._fields:
            child = getattr(node, name, None)
            if isinstance(child, AST):
                push((child, depth))
            elif isinstance(child, list):
                for item in child:
                    if isinstance(item, AST):
                        push((item, depth))


def split_equation(text: str, where: Where) -> tuple[str, str, int]:
    """'a = b + c' -> ('a ', ' b + c', offset of rhs). Exactly one '=' that is not part of ==, <=, >=, !=."""
    text = str(text)
    cut = text.find("=")
    if cut > 0 and text.count("=") == 1 and text[cut - 1] not in _OPERATOR_CHARS and _PLAIN_EQUATION.fullmatch(text):
        return text[:cut], text[cut + 1 :], cut + 1  # one '=' in one line of plain text: where the tokenizer finds it
    cuts = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.OP and tok.string == "=":
                if tok.start[0] != 1:
                    raise ModelError("write an equation on one line", where(tok.start[0], tok.start[1]), "YAML folds long text: keep the equation on one line, or split it")
                cuts.append(tok.start[1])
    except (tokenize.TokenError, IndentationError, SyntaxError):
        cuts = [i for i, c in enumerate(text) if c == "=" and text[i - 1 : i] not in ("=", "<", ">", "!") and text[i + 1 : i + 2] != "="]
    if len(cuts) != 1:
        found = "no '='" if not cuts else f"{len(cuts)} '=' signs"
        raise ModelError(f"an equation needs exactly one '=', found {found}", where(1, cuts[1] if len(cuts) > 1 else 0), "write it as: left side = right side (use == only inside conditions)")
    return text[: cuts[0]], text[cuts[0] + 1 :], cuts[0] + 1


# Text the tokenizer reads as the characters say: no strings, comments, continuations or line breaks. In it
# a lone '=' is the '=' token unless it ends an operator (<= += := ...); '==' has two and takes the tokenizer's path.
_PLAIN_EQUATION = re.compile(r"[A-Za-z0-9_ \t.,+\-*/%()\[\]<>=!&|^~@:]*")
_OPERATOR_CHARS = "=<>!+-*/%&|^@:"


class _Builder(Calls):
    def __init__(self, text: str, where: Where, scope: Scope):
        self.text, self.where, self.scope = text, where, scope
        # one line of ASCII: a node's source is text[col_offset:end_col_offset] (ast counts UTF-8 bytes, one per character here)
        self.plain = text.isascii() and "\n" not in text and "\r" not in text
        self.divisors: list[tuple[sp.Expr, sp.Basic]] = []  # Term.guards
        self.branch: list[sp.Basic] = []  # conditions of the if() branches being read

    def loc(self, node: ast.AST) -> Loc:
        return self.where(node.lineno, node.col_offset)

    def operator_loc(self, node: ast.BinOp) -> Loc:
        """Where the operator of a binary operation is written (after the left operand)."""
        lines = self.text.splitlines()
        row, col = node.left.end_lineno, node.left.end_col_offset
        while row <= len(lines):
            line = lines[row - 1]
            while col < len(line) and (line[col] in " \t)"):
                col += 1
            if col < len(line):
                return self.where(row, col)
            row, col = row + 1, 0
        return self.loc(node)

    def fail(self, node: ast.AST, message: str, hint: str = "") -> ModelError:
        return ModelError(message, self.loc(node), hint)

    def segment(self, node: ast.AST) -> str:
        if self.plain:
            return self.text[node.col_offset : node.end_col_offset]
        return ast.get_source_segment(self.text, node) or ""

    def visit(self, node: ast.AST) -> Term:
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise self.fail(node, f"{_describe(node)} is not allowed in an expression", "use numbers, names, + - * / **, comparisons and the functions " + ", ".join(FUNCTIONS))
        term = method(node)
        # a constant without a finite value (1/0, 0 ** -1, log(0)) is refused where it is written: SymPy can
        # cancel it later (1 / (x / 0) is 0), and a divisor that kept it (x * zoo) has no program node
        if isinstance(node, (ast.BinOp, ast.Call)) and not is_condition(term.dim) and term.expr.is_number and term.expr.has(*_NO_VALUE):
            raise self.fail(node, "this expression has no finite real value", "look for a division by zero or the logarithm of 0")
        return term

    # --- leaves -----------------------------------------------------------------
    def visit_Constant(self, node: ast.Constant) -> Term:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(node, f"{type(value).__name__} literals are not allowed", "expressions hold numbers, names and unit literals such as 2[GB]")
        text = self.segment(node).replace("_", "")
        if not _DECIMAL.fullmatch(text):
            raise self.fail(node, f"'{text}' is not a decimal number", "write numbers in decimal, such as 16 or 0.5 or 1e-3")
        problem = number_problem(text)
        if problem:
            raise self.fail(node, *problem)
        number = _rational(text)
        return Term(number, ANY if number == 0 else DIMENSIONLESS)

    def visit_Name(self, node: ast.Name) -> Term:
        if node.id.startswith("_"):
            raise self.fail(node, f"name '{node.id}' is not allowed", "names may not start with '_'")
        self.want_ascii(node)
        return self.scope.lookup(node.id, self.loc(node))

    def visit_Attribute(self, node: ast.Attribute) -> Term:
        if not isinstance(node.value, ast.Name) or node.attr.startswith("_") or node.value.id.startswith("_"):
            raise self.fail(node, "attribute access is not allowed here", "only catalog and import references such as gpu.memory_bandwidth or llm.weight_bytes")
        self.want_ascii(node)
        return self.scope.lookup(f"{node.value.id}.{node.attr}", self.loc(node))

    def want_ascii(self, node: ast.AST) -> None:
        """Python reads 'ｂatch' and '𝑏atch' as 'batch' (NFKC); a name must be written as it is declared."""
        if self.plain:
            return
        written = self.segment(node)
        if not written.isascii():
            raise self.fail(node, f"name '{written}' is not written in plain letters", "names are lower-case a-z, digits and '_', as declared under variables:")

    def visit_Subscript(self, node: ast.Subscript) -> Term:
        number = node.value
        if isinstance(number, ast.Name) and isinstance(node.slice, ast.Name) and hasattr(self.scope, "lookup_table"):  # a lookup by name: dtype_bits[kv_dtype]
            for name in (number, node.slice):
                if name.id.startswith("_"):
                    raise self.fail(name, f"name '{name.id}' is not allowed", "names may not start with '_'")
                self.want_ascii(name)
            return self.scope.lookup_table(number.id, node.slice.id, self.loc(node))
        if not (isinstance(number, ast.Constant) and isinstance(number.value, (int, float)) and not isinstance(number.value, bool)):
            raise self.fail(node, "subscripts are not allowed", "a unit literal is a number followed by its unit in brackets, 50[GB/s]; a lookup is read by a choice input, dtype_bits[kv_dtype]")
        value = self.visit_Constant(number).expr
        unit_text = self.segment(node.slice)
        try:
            _, factor, dim = parse_unit(unit_text)
        except BadUnit as e:
            raise self.fail(node.slice, str(e), "units are written as in pint: GB, GiB, ms, token/s, FLOP/token**2") from None
        return Term(value * factor, dim)

    # --- operators ----------------------------------------------------------------
    def visit_UnaryOp(self, node: ast.UnaryOp) -> Term:
        operand = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            self.want_bool(node.operand, operand)
            return Term(sp.Not(operand.expr), BOOL)
        self.want_number(node.operand, operand)
        if isinstance(node.op, ast.USub):
            return Term(-operand.expr, operand.dim)
        if isinstance(node.op, ast.UAdd):
            return operand
        raise self.fail(node, f"operator {type(node.op).__name__} is not allowed", "arithmetic is + - * / **; conditions use not, and, or")

    def visit_BinOp(self, node: ast.BinOp) -> Term:
        left, right = self.visit(node.left), self.visit(node.right)
        self.want_number(node.left, left)
        self.want_number(node.right, right)
        op = type(node.op)
        if op in (ast.Add, ast.Sub):
            if not same_dim(left.dim, right.dim):
                word = "add" if op is ast.Add else "subtract"
                raise UnitError(
                    f"cannot {word} {dim_str(left.dim)} and {dim_str(right.dim)}",
                    self.operator_loc(node),
                    "both sides of + and - need the same dimension; a unit literal such as 1[token] may be missing",
                    dim_str(left.dim),
                    dim_str(right.dim),
                )
            dim = right.dim if left.dim is ANY else left.dim
            return Term(left.expr + right.expr if op is ast.Add else left.expr - right.expr, dim)
        if op is ast.Mult:
            dim = ANY if ANY in (left.dim, right.dim) else left.dim * right.dim
            return Term(left.expr * right.expr, dim)
        if op is ast.Div:
            dim = ANY if left.dim is ANY else left.dim / (right.dim if right.dim is not ANY else DIMENSIONLESS)
            if right.expr.is_zero:  # x / 0 is zoo * x for SymPy: no value, whatever x is
                raise self.fail(node.right, f"division by zero: {self.segment(node.right)} is 0", "a divisor that is always 0 leaves the expression without a value")
            if not right.expr.is_number:
                self.divisors.append((right.expr, sp.And(*self.branch)))
            return Term(left.expr / right.expr, dim)
        if op is ast.Mod:
            return self.modulo(node, left, right, node.left, node.right)
        if op is ast.Pow:
            return self.power(node, left, right)
        raise self.fail(
            node, f"operator {_OPS.get(op, op.__name__)} is not allowed", "arithmetic is + - * / % and ** for powers" + ("; a whole quotient is floor(a / b)" if op is ast.FloorDiv else "")
        )

    def power(self, node: ast.BinOp, base: Term, exp: Term) -> Term:
        if exp.dim not in (DIMENSIONLESS, ANY):
            raise UnitError(f"an exponent must be dimensionless, not {dim_str(exp.dim)}", self.loc(node.right), "divide by a unit first", dim_str(exp.dim), "dimensionless")
        if exp.expr.is_number and abs(exp.expr) > MAX_EXPONENT:
            raise self.fail(node.right, f"exponent {exp.expr} is too large", f"exponents are limited to {MAX_EXPONENT}")
        if base.expr.is_number and exp.expr.is_number and base.expr != 0:
            digits = abs(float(exp.expr)) * abs(float(sp.log(abs(base.expr), 10).evalf(15)))
            if digits > MAX_DIGITS:
                raise self.fail(node, f"the constant {self.segment(node)} has about {digits:.3g} digits", f"constants are limited to {MAX_DIGITS} digits")
        if base.dim in (DIMENSIONLESS, ANY):
            return Term(sp.Pow(base.expr, exp.expr), base.dim)
        if not exp.expr.is_Rational:
            raise UnitError(f"a quantity of {dim_str(base.dim)} can only be raised to a constant power", self.loc(node.right), "use a number as the exponent", dim_str(base.dim), "a constant")
        return Term(sp.Pow(base.expr, exp.expr), base.dim ** Fraction(int(exp.expr.p), int(exp.expr.q)))

    def visit_Compare(self, node: ast.Compare) -> Term:
        terms = [self.visit(node.left)] + [self.visit(c) for c in node.comparators]
        nodes = [node.left] + list(node.comparators)
        parts = []
        for (a, an), (b, bn), op in zip(zip(terms, nodes), list(zip(terms, nodes))[1:], node.ops):
            self.want_number(an, a)
            self.want_number(bn, b)
            if not same_dim(a.dim, b.dim):
                raise UnitError(f"cannot compare {dim_str(a.dim)} with {dim_str(b.dim)}", self.loc(node), "both sides of a comparison need the same dimension", dim_str(a.dim), dim_str(b.dim))
            if type(op) not in _COMPARE:
                word = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}.get(type(op), type(op).__name__)
                raise self.fail(node, f"'{word}' is not allowed in an expression", "compare numbers with <, <=, >, >=, == or !=")
            parts.append(held(_COMPARE[type(op)], a.expr, b.expr))
        return Term(sp.And(*parts) if len(parts) > 1 else parts[0], BOOL)

    def visit_BoolOp(self, node: ast.BoolOp) -> Term:
        values = [self.visit(v) for v in node.values]
        for v, n in zip(values, node.values):
            self.want_bool(n, v)
        fn = sp.And if isinstance(node.op, ast.And) else sp.Or
        return Term(fn(*[v.expr for v in values]), BOOL)

    def visit_IfExp(self, node: ast.IfExp) -> Term:
        raise self.fail(node, "'a if c else b' is not part of the language", "write if(c, a, b)")


_NO_VALUE = (sp.zoo, sp.nan, sp.oo, -sp.oo)
_DECIMAL = re.compile(r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_rational = lru_cache(maxsize=4096)(sp.Rational)  # a literal's exact value; the same few (1, 2, 1000) recur in every formula
_NO_REAL_VALUE = frozenset({*_NO_VALUE, sp.I})
_NUMBER_ATOMS = (sp.Number, type(sp.zoo), type(sp.I))  # the atoms _NO_REAL_VALUE's are, and the Rationals

_OPS = {ast.BitXor: "^", ast.BitAnd: "&", ast.BitOr: "|", ast.FloorDiv: "//", ast.Mod: "%", ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>"}


def _describe(node: ast.AST) -> str:
    names = {
        "Lambda": "a lambda",
        "JoinedStr": "an f-string",
        "List": "a list",
        "Tuple": "a tuple",
        "Dict": "a dict",
        "Set": "a set",
        "ListComp": "a comprehension",
        "GeneratorExp": "a generator",
        "NamedExpr": "':='",
        "Await": "await",
        "Starred": "'*'",
        "Slice": "a slice",
    }
    return names.get(type(node).__name__, type(node).__name__)
