"""The model file format as JSON Schema: validated on load, printed by `chainc schema`.

An editor with a YAML language server completes and checks model files with it:
put `# yaml-language-server: $schema=../docs/model.schema.json` on the first line.
"""

from __future__ import annotations

import contextvars
import re
import unicodedata

import jsonschema

from .errors import ModelError
from .limits import LIMITS
from .source import Source

IDENT = "^[a-z][a-z0-9_]*$"
SLUG = "^[a-z0-9][a-z0-9.-]*$"
KEY = "^[A-Za-z0-9][A-Za-z0-9_.+-]*$"  # a lookup's key, a choice's name: fp8, int4-awq, e4m3
_NAME = {"pattern": IDENT, "maxLength": LIMITS["name_chars"].default}  # of variables, tables, ...
_SLUG = {"type": "string", "pattern": SLUG, "maxLength": LIMITS["name_chars"].default}  # of models and catalog entries: file names

_text = {"type": "string"}
_number_or_text = {"type": ["number", "string"]}
_quantity = {
    "description": "A number in the variable's display unit (64), a quantity with its unit ('10 ms/token'), or an expression of catalog values and imports ('llm.weight_bytes').",
    "type": ["number", "string"],
}

VARIABLE = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "unit": {"type": ["string", "number"], "description": "Display unit: 'ms/token', 'GB', 'token/s'; '1' or omitted when dimensionless."},
        "value": {**_quantity, "description": "Default value; a variable with a default is an input. " + _quantity["description"]},
        "description": {**_text, "description": "What the variable means, in words."},
        "symbol": {**_text, "description": "LaTeX symbol, such as 'T_{\\\\mathrm{pot}}' or '\\\\lambda'."},
        "domain": {"enum": ["positive", "nonnegative", "real"], "description": "Sign of the values (default positive); picks the root when solving."},
        "integer": {"type": "boolean", "description": "Only whole values make sense (a batch size); questions round to them."},
        "min": {**_number_or_text, "description": "Smallest allowed value (display unit or quantity)."},
        "max": {**_number_or_text, "description": "Largest allowed value (display unit or quantity)."},
        "digits": {"type": "integer", "minimum": 1, "maximum": 15, "description": "Significant figures to show."},
        "choices": {
            "description": "An input that takes one of these names (a dropdown in the workbook): a list ([bf16, fp8, int4]), or a lookup's name (its keys). Its value is a name; lookup[variable] reads a lookup at it.",
            "oneOf": [{"type": "array", "minItems": 1, "items": {"type": "string", "pattern": KEY, "maxLength": 64}}, {"type": "string", "pattern": IDENT}],
        },
        "values": {
            "description": "The finite set of values the variable may take: a list ([1, 2, 4, 8]) or a range ({from: 1, to: 64, step: x2}); questions answer from it.",
            "oneOf": [
                {"type": "array", "minItems": 1, "items": _number_or_text},
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["from", "to", "step"],
                    "properties": {
                        "from": {**_number_or_text, "description": "The smallest value."},
                        "to": {**_number_or_text, "description": "The largest value (included if the steps land on it)."},
                        "step": {**_number_or_text, "description": "The distance between neighbours (8), or their ratio ('x2')."},
                    },
                },
            ],
        },
    },
}

LOOKUP = {
    "description": "A mapping from names to values of one unit ({unit: bit, values: {bf16: 16, fp8: 8}}), read as name[choice input] in expressions.",
    "type": "object",
    "additionalProperties": False,
    "required": ["values"],
    "properties": {
        "unit": {"type": ["string", "number"], "description": "The unit of the values ('bit', 'USD/h'); omitted when dimensionless."},
        "description": {**_text, "description": "What the values are, in words."},
        "values": {
            "type": "object",
            "minProperties": 1,
            "propertyNames": {"pattern": KEY, "maxLength": 64},
            "additionalProperties": _number_or_text,
            "description": "Each name's value: a number in the unit, or a quantity ('8 bit').",
        },
    },
}

EQUATION = {
    "description": "An equation 'left = right' in the expression language; equations may come in any order.",
    "oneOf": [
        {"type": "string"},
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["equation"],
            "properties": {
                "equation": _text,
                "about": _text,
                "valid_when": {**_text, "description": "Where the equation holds ('load < 1'): outside it there is no value, the edge of the domain for every solve and question."},
            },
        },
    ],
}

COLUMN = {
    "type": "object",
    "additionalProperties": False,
    "required": ["formula"],
    "properties": {
        "unit": {"type": ["string", "number"]},
        "formula": {**_text, "description": "Expression of i (the row, from 1), scalars, this row's other columns and prev.<column>."},
        "initial": {**_quantity, "description": "Value of prev.<column> in the first row (default 0)."},
        "description": _text,
        "symbol": _text,
    },
}

TABLE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["rows", "columns"],
    "properties": {
        "about": _text,
        "rows": {**_number_or_text, "description": "Number of rows: a dimensionless expression of scalars."},
        "max_rows": {
            "type": "integer",
            "minimum": 1,
            "maximum": LIMITS["table_rows_max"].default,
            "description": f"Upper bound on rows (default {LIMITS['table_rows'].default}); workbooks lay out this many.",
        },
        "columns": {"type": "object", "minProperties": 1, "propertyNames": _NAME, "additionalProperties": COLUMN},
    },
}

_SUCH_THAT = {
    "description": "The condition the answer must meet, such as 'tpot <= tpot_target'; several joined by 'and' must all hold, or a mapping of named conditions ({latency: 'tpot <= tpot_target', memory: 'step_bytes <= gpu.memory'}).",
    "oneOf": [_text, {"type": "object", "minProperties": 1, "propertyNames": _NAME, "additionalProperties": _text}],
}
_OBJECTIVE = {"type": "string", "pattern": r"^\s*(max|min)\s+[A-Za-z_][A-Za-z0-9_.]*\s*$", "maxLength": 200}
_OVER = {
    "type": "object",
    "minProperties": 1,
    "propertyNames": _NAME,
    "description": "What to vary, each with its values: {gpu: [h100-sxm, h200], tp: [1, 2, 4, 8], batch: {from: 1, to: 256, step: x2}}; 'all' takes every catalog entry, or every value of a variable's set.",
    "additionalProperties": {
        "oneOf": [
            {"type": "array", "items": _number_or_text},
            {"const": "all"},
            {"type": "object", "required": ["from", "to", "step"], "additionalProperties": False, "properties": {"from": _number_or_text, "to": _number_or_text, "step": _number_or_text}},
        ]
    },
}
_WITH = {"type": "object", "propertyNames": _NAME, "additionalProperties": _text, "description": "Inner unknowns answered at each configuration by a question of this model: {batch: max_batch}."}
_SHOW = {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Rows of the ranked table of the best configurations (default 5)."}

QUESTION = {
    "type": "object",
    "additionalProperties": False,
    "anyOf": [{"required": ["find", "such_that", "seek"]}, {"required": ["over", "seek"]}, {"required": ["find", "seek"], "properties": {"seek": _OBJECTIVE}}],
    "properties": {
        "ask": {**_text, "description": "The question in words."},
        "find": {**_text, "description": "The variable to answer with."},
        "such_that": _SUCH_THAT,
        "seek": {
            "description": "max or min: the largest or the smallest value that meets the condition; 'min tpot', 'max speedup': the configuration (over:) or value (find:) with the best objective.",
            "oneOf": [{"enum": ["max", "min"]}, _OBJECTIVE],
        },
        "step": {**_number_or_text, "description": "Round the answer to this grid, on the safe side (integers default to 1)."},
        "over": _OVER,
        "with": _WITH,
        "show": _SHOW,
    },
}

FRONTIER = {
    "type": "object",
    "additionalProperties": False,
    "required": ["x", "y", "over"],
    "properties": {
        "about": _text,
        "x": {**_OBJECTIVE, "description": "The first objective: 'max tokens_per_user'."},
        "y": {**_OBJECTIVE, "description": "The second objective: 'max tokens_per_gpu'."},
        "over": _OVER,
        "with": _WITH,
        "such_that": _SUCH_THAT,
    },
}

CHECK = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "about": {**_text, "description": "The line of the source this check reproduces."},
        "given": {"type": "object", "description": "Inputs to change for this check.", "additionalProperties": _quantity},
        "expect": {
            "description": "Expected values: {variable: value}; with 'question', the answer. Without a tolerance, a value must agree to the digits it is written with.",
            "oneOf": [{"type": "object", "additionalProperties": _number_or_text}, _number_or_text],
        },
        "that": {**_text, "description": "A relation that must hold, such as 'token_rate == arrival_rate * 299[token] / 1[request]'."},
        "question": {**_text, "description": "A question whose answer is compared with 'expect'."},
        "tolerance": {**_number_or_text, "description": "'0.1%' (relative), a quantity such as '0.5 ms' (absolute), or a number in the display unit."},
    },
}

LIMIT = {
    "description": "A physical limit: a comparison that must hold for the numbers to describe a real machine ('step_bytes <= memory'), or {that: comparison, about: words}. It cuts nothing: a solve where it fails still has its numbers, with a warning beside them.",
    "type": ["string", "object"],
    "additionalProperties": False,
    "required": ["that"],
    "properties": {
        "that": {**_text, "description": "The comparison, such as 'step_bytes <= memory'."},
        "about": {**_text, "description": "What the limit is, in words: warnings quote it."},
    },
}

SWEEP = {
    "type": "object",
    "additionalProperties": False,
    "required": ["over", "from", "to", "show"],
    "properties": {
        "about": _text,
        "over": {**_text, "description": "The input to vary."},
        "from": {"type": "number"},
        "to": {"type": "number"},
        "step": {"type": "number", "exclusiveMinimum": 0},
        "show": {"type": "array", "items": _text, "minItems": 1, "description": "Variables to plot."},
        "reference": {**_text, "description": "A variable drawn as a horizontal line (a target)."},
    },
}

MODEL_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://chainc.dev/model.schema.json",
    "title": "chainc model",
    "description": "A chain of serving math: variables with units, equations, tables, questions and checks.",
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "title", "variables", "equations"],
    "properties": {
        "name": {**_SLUG, "description": "The model's name, as used on the command line (littles-law)."},
        "title": _text,
        "about": _text,
        "expected_from": {**_text, "description": "Where the checks' expected numbers come from ('the card', a datasheet): outputs name it beside them. Without it they are the expected values."},
        "uses": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "gpu": {**_SLUG, "description": "Default GPU from hardware/gpus (h100-sxm); its values are gpu.<field>."},
                "llm": {**_SLUG, "description": "Default LLM from hardware/llms (llama-3.1-8b); its values are llm.<field>."},
                "models": {
                    "type": "object",
                    "description": "Models this one builds on: {alias: model name}, their solved values alias.<variable>; or {alias: {model: name or relative path, given: {input: expression}}}, their equations joined to this model's, so it solves through them.",
                    "propertyNames": _NAME,
                    "additionalProperties": {
                        "oneOf": [
                            _SLUG,
                            {
                                "type": "object",
                                "additionalProperties": False,
                                "required": ["model"],
                                "properties": {
                                    "model": {"type": "string", "maxLength": 300, "description": "A model name (goodput) or a path relative to this file (../shared/decode.yaml), inside the project."},
                                    "given": {
                                        "type": "object",
                                        "propertyNames": _NAME,
                                        "additionalProperties": _quantity,
                                        "description": "The imported model's inputs, bound to this model's expressions.",
                                    },
                                },
                            },
                        ]
                    },
                },
            },
        },
        "variables": {"type": "object", "minProperties": 1, "propertyNames": _NAME, "additionalProperties": VARIABLE},
        "equations": {"type": "array", "items": EQUATION},
        "lookups": {"type": "object", "propertyNames": _NAME, "additionalProperties": LOOKUP},
        "tables": {"type": "object", "propertyNames": _NAME, "additionalProperties": TABLE},
        "questions": {"type": "object", "propertyNames": _NAME, "additionalProperties": QUESTION},
        "frontiers": {
            "type": "object",
            "propertyNames": _NAME,
            "additionalProperties": FRONTIER,
            "description": "Pareto frontiers: two objectives over configurations, every configuration that no other beats on both.",
        },
        "limits": {
            "type": "object",
            "propertyNames": _NAME,
            "additionalProperties": LIMIT,
            "description": "Physical limits by name ({memory: 'step_bytes <= memory'}): every solve and question checks them and warns where one fails.",
        },
        "checks": {"type": "array", "items": CHECK},
        "sweeps": {"type": "object", "propertyNames": _NAME, "additionalProperties": SWEEP},
    },
}


def _pattern(validator, pattern, instance, schema):
    """JSON Schema's pattern, with '$' at the very end: Python's '$' also matches before a final newline."""
    if validator.is_type(instance, "string") and not re.search(pattern.replace("$", r"\Z"), instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


# --- a value validated once: a 100,000-variable model repeats {unit: ms} 100,000 times -------------------
#
# The values of a mapping's additionalProperties and of a list's items are each validated alone
# against one subschema, so a value equal to one that passed passes too: it is skipped. Only passes
# are remembered (an error is always computed, with its own path). Equal means the same repr
# (1, 1.0 and True differ); under a subschema that never reads a string's text (no pattern,
# length, enum, const or format), every string is equal.

_READS_TEXT = frozenset({"pattern", "maxLength", "minLength", "enum", "const", "format", "$ref", "$dynamicRef"})
_ANY_TEXT = object()
_passed: contextvars.ContextVar[set | None] = contextvars.ContextVar("passed", default=None)
_blind: dict[int, tuple[dict, bool]] = {}  # id(subschema) -> (the subschema, it never reads a string's text)


def _reads_text(schema) -> bool:
    if isinstance(schema, dict):
        return any(k in _READS_TEXT or _reads_text(v) for k, v in schema.items())
    return isinstance(schema, list) and any(_reads_text(v) for v in schema)


def _each(validator, sub, pairs):
    """Errors of each (path, value) against sub, skipping a value equal to one that passed."""
    passed = _passed.get()
    known = _blind.get(id(sub))
    if known is None or known[0] is not sub:
        known = _blind[id(sub)] = (sub, not _reads_text(sub))
    blind = known[1]
    for path, value in pairs:
        key = None
        if passed is not None:
            key = _ANY_TEXT if blind and type(value) is str else repr(value)
            key = (id(sub), key) if key is _ANY_TEXT or len(key) <= 400 else None
            if key is not None and key in passed:
                continue
        errors = list(validator.descend(value, sub, path=path))
        if not errors and key is not None:
            passed.add(key)
        yield from errors


def _additional_properties(validator, ap, instance, schema):
    if not (isinstance(ap, dict) and validator.is_type(instance, "object")):
        yield from _KEYWORDS["additionalProperties"](validator, ap, instance, schema)
        return
    extras = jsonschema._utils.find_additional_properties(instance, schema)
    yield from _each(validator, ap, ((extra, instance[extra]) for extra in extras))


def _items(validator, items, instance, schema):
    if not (isinstance(items, dict) and validator.is_type(instance, "array") and "prefixItems" not in schema):
        yield from _KEYWORDS["items"](validator, items, instance, schema)
        return
    yield from _each(validator, items, enumerate(instance))


_KEYWORDS = jsonschema.Draft202012Validator.VALIDATORS
_Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": _pattern, "additionalProperties": _additional_properties, "items": _items})


def validate(src: Source, schema: dict) -> None:
    """Raise ModelError at the first schema violation (by position in the file)."""
    validator = _Validator(schema)
    token = _passed.set(set())
    try:
        errors = list(validator.iter_errors(src.data))
    finally:
        _passed.reset(token)
    errors = sorted(errors, key=lambda e: (src.loc(tuple(e.absolute_path)).line, list(map(str, e.absolute_path))))
    if not errors:
        return
    err = _deepest(errors[0])
    path = tuple(err.absolute_path)
    where = shown(".".join(map(str, path))) or "the file"
    # the key at fault: an unknown one, or a name that breaks the pattern (propertyNames reports the mapping's path)
    key = _extra_key(err)
    if key is None and isinstance(err.instance, str) and isinstance(_at(src.data, path), dict) and err.instance in _at(src.data, path):
        key = err.instance
    message, hint = _explain(err, where)
    raise ModelError(message, src.loc(path + (key,), key=True) if key is not None else src.loc(path), hint)


def _at(data, path: tuple):
    for k in path:
        data = data[k]
    return data


def _deepest(err: jsonschema.ValidationError) -> jsonschema.ValidationError:
    while err.context:
        err = max(err.context, key=lambda e: len(e.absolute_path))
    return err


def _extra_key(err: jsonschema.ValidationError) -> str | None:
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = set(err.schema.get("properties", {}))
        extra = sorted(k for k in err.instance if k not in allowed)
        return extra[0] if extra else None
    if err.validator == "propertyNames":
        return str(err.instance)
    return None


def shown(text, most: int = 80) -> str:
    """User text in a message: short, and with invisible or control characters written as escapes."""
    text = str(text)
    if len(text) > most:
        text = text[: most - 3] + "..."
    return "".join(ch if ch == " " or unicodedata.category(ch)[0] not in "CZ" else ascii(ch)[1:-1] for ch in text)


_TYPES = {"string": "text", "number": "a number", "integer": "a whole number", "boolean": "true or false", "object": "a mapping", "array": "a list", "null": "null"}
_GOT = {str: "text", int: "a whole number", float: "a number", bool: "true or false", dict: "a mapping", list: "a list", type(None): "nothing (null)"}


def _explain(err: jsonschema.ValidationError, where: str) -> tuple[str, str]:
    if err.validator == "additionalProperties":
        extra = _extra_key(err)
        allowed = ", ".join(sorted(err.schema.get("properties", {})))
        return f"unknown key '{shown(extra)}' in {where}", f"allowed keys: {allowed}"
    if err.validator == "required":
        return f"{where}: {err.message}", "see chainc docs model-format"
    if err.validator == "pattern" or err.validator == "propertyNames":
        return f"'{shown(err.instance)}' is not a valid name in {where}", "names are lower case letters, digits and '_', starting with a letter"
    if err.validator == "maxLength":
        return f"{where}: '{shown(err.instance)}' is longer than {err.validator_value} characters", "use a shorter name"
    if err.validator == "enum":
        choices = ", ".join(map(str, err.validator_value))
        return f"{where}: '{shown(err.instance)}' is not one of {choices}", f"write one of: {choices}"
    if err.validator == "type":
        want = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        hint = "see chainc docs model-format"
        if isinstance(err.instance, dict) and "string" in want:
            hint = "YAML read 'text: more text' as a mapping: put the text in quotes"
        elif isinstance(err.instance, str) and ("number" in want or "integer" in want):
            hint = f"write a decimal number such as 16 or 0.5; '{shown(err.instance)}' is text (YAML's 0x10, 1:30 and .inf are not numbers here)"
        elif isinstance(err.instance, str) and "boolean" in want:
            hint = "write true or false (yes, no, on and off are text here)"
        elif "string" in want:
            hint = "put the text in quotes"
        wanted = " or ".join(_TYPES.get(t, t) for t in want)
        return f"{where}: expected {wanted}, got {_GOT.get(type(err.instance), type(err.instance).__name__)}", hint
    return f"{where}: {shown(err.message, 300)}", "see chainc docs model-format"
