"""Chains kept as explicit examples of tests/test_agreement.py's property (and tests/test_agreement_constructs.py).

The first ones are chains the property once found going wrong; the last ones are one of
each construct the grammar draws that a default run may not reach: nested sums (the inner
part apart from the outer index, reading it in its terms, in its bounds), a joined model
and questions with several conditions.
"""

from __future__ import annotations

import textwrap

from .agreement_grammar import Chain

# --- chains that once went wrong ---------------------------------------------------------------------------------
#
# Each disagreement (or crash, or time bomb) the property found, shrunk by hand where hypothesis could not.


def yaml(text: str) -> str:
    """A chain's YAML, written indented in this file."""
    return textwrap.dedent(text).lstrip("\n")


# 17 s: every solve at a question's trial point identified each float value with nsimplify (PSLQ)
# to pick the admissible root of the squared equations (compiler/solver.py, _chosen_forms)
TWO_ROOTS_ARE_CHOSEN_QUICKLY = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a0: {unit: "GB", value: 0.5, domain: "nonnegative", min: 0.5}
      a1: {unit: "token/s", domain: "nonnegative"}
      a2: {unit: "s", domain: "nonnegative"}
      a3: {unit: "MB"}
    equations:
      - "a1 ** 2 = 7[token**2/s**2]"
      - "a2 ** 2 = 3[s**2]"
      - "a3 ** 2 = (a0 + a0) * a0"
    questions:
      q0: {find: "a0", such_that: "a3 >= 0.1[MB]", seek: "max"}
    """),
    ({"a0": 12.5},),
)

# a crash (Unlowerable: ComplexInfinity) instead of an error: SymPy cancelled 1 / (prev.c0 / 0) in the column's
# value but kept the divisor prev.c0 * zoo for its guard; a constant 0 divisor is now refused where it is written
ZERO_DIVISOR_IN_A_COLUMN = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a0: {value: 2}
      a1: {domain: "real"}
    equations:
      - "a1 = a0 + sum(t.c0)"
    tables:
      t:
        rows: "2"
        columns:
          c0: {formula: "1 / (prev.c0 / min(1, 0))", initial: 1}
    """)
)

# a2 + a1 = max(2, a1) has no root for a2 = -1; the modules found a1 = 1.8e16, where a2 + a1 rounds to a1
# in floats and the residual was 0: residuals are now summed without cancellation error (runtime exact_sum)
ROUNDING_IS_NO_ROOT = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a0: {unit: "s", value: 2}
      a1: {value: 1, integer: true}
      a2: {domain: "real"}
    equations:
      - "a2 + a1 = max(2, a1)"
    """),
    ({},),
    ("a1", "a2"),
)

# a4 = 2[token] / floor(a0) has no value at a0 = 0.5: the solver's candidate raises ZeroDivisionError, but the
# NumPy module's was inf (NumPy divides by zero quietly) and _pick_np admitted it in a real domain
INFINITE_ROOT_IS_NO_ROOT = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a0: {value: 2}
      a4: {unit: "token", domain: "real"}
    equations:
      - "2[token] / a4 = floor(a0)"
    """),
    ({"a0": 0.5},),
)

# a crash (KeyError: 'a3') in the question's boundary program: a4 = 0 / a3 is the constant 0, so its step came
# first, and the guard of its divisor a3 with it, before the boundary equation computed a3
GUARD_BEFORE_ITS_DIVISOR = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a1: {unit: "s", value: 2}
      a3: {unit: "token", domain: "real"}
      a4: {unit: "token", domain: "real"}
    equations:
      - "a3 = 4[s*token] / (a1 + a1)"
      - "a4 = (0 * 2[token**2]) / a3"
    questions:
      q0: {find: "a1", such_that: "a3 > 1.5[token]", seek: "max"}
    """),
    ({"a1": 0.5},),
)

# 16e9 * np.minimum(16e9, 16e9) in NumPy's int64 overflowed without a word (-0.07 GB for 8 GB): large whole constants print as floats
INT64_OVERFLOW = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a0: {value: 1, integer: true, min: 1}
      a1: {unit: "GB", domain: "real"}
      a2: {unit: "GB", domain: "real"}
      a4: {unit: "GB", domain: "real"}
    equations:
      - "a1 = 2[GB]"
      - "a2 = if(a0 < a0, a1, a1)"
      - "a4 = (a1 * 2[1/GB]) * min(a1, a2)"
    """),
    ({},),
)

# from the default a0 = 2 the way down has no values (a table of ceil(a0) rows): NumPy found no bracket where the scalar scan finds a0 = 1
NO_BRACKET_FROM_THE_START = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a0: {value: 2, domain: "real"}
      a2: {domain: "real"}
    equations:
      - "a2 = a0 + sum(t.c0) * 1[1/token]"
    tables:
      t:
        rows: "min(ceil(a0), 4)"
        columns:
          c0: {formula: "prev.c0", unit: "token"}
    """),
    ({},),
    ("a0", "a2"),
)

# no a0 meets the condition, and at the closest point (a0 = 0) 2 / a0 divides by zero: NumPy raised ZeroDivisionError
DIVISION_AT_THE_CLOSEST_POINT = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a0: {unit: "s", value: 2, domain: "nonnegative"}
      a2: {unit: "s", domain: "real"}
    equations:
      - "a2 = 2[s**2] / a0 + a0"
    questions:
      q0: {find: "a0", such_that: "a2 <= 2[s]", seek: "max", step: 0.5}
    """),
    ({},),
)


# --- one of each new construct ---------------------------------------------------------------------------------------
#
# By hand, at the defaults (a0 = 3, a1 = 2 s):

# the inner sum reads no outer index: 3 x (0 + 1 + 2) x 2 s = 18 s; at most a0 with a2 <= 100 s: 6 a0 <= 100, a0 = 16
NESTED_APART = Chain(
    yaml("""
    name: chain
    title: nested sums, the inner one apart from the outer index
    variables:
      a0: {value: 3, integer: true, max: 20}
      a1: {unit: "s", value: 2}
      a2: {unit: "s", domain: "real"}
    equations:
      - "a2 = sum(sum(a1 * j for j in range(3)) for k in range(a0))"
    questions:
      q0: {find: "a0", such_that: "a2 <= 100[s]", seek: "max"}
    """),
    ({"a0": 5}, {"a0": 0, "a1": 0.5}),
    ("a1", "a2"),
    constructs=frozenset({"sum", "nested", "nested apart"}),
)

# the inner terms read the outer index: sum over k < 3 of k x (0 + 1 + 2) x 2 s = 3 x 3 x 2 s = 18 s
NESTED_OUTER_TERMS = Chain(
    yaml("""
    name: chain
    title: nested sums, the inner terms reading the outer index
    variables:
      a0: {value: 3, integer: true, max: 20}
      a1: {unit: "s", value: 2}
      a2: {unit: "s", domain: "real"}
    equations:
      - "a2 = sum(sum(j * k * a1 for j in range(3)) for k in range(a0))"
    questions:
      q0: {find: "a0", such_that: "a2 <= 100[s]", seek: "max"}
    """),
    ({"a0": 5}, {"a1": 0.5}),
    ("a1", "a2"),
    constructs=frozenset({"sum", "nested", "outer index in terms"}),
)

# the inner bounds read the outer index: sum over k < 3 of (0 + ... + k - 1) x 2 s = (0 + 0 + 1) x 2 s = 2 s;
# a3 = prod over k = 1, 2 of sum over j = k .. 3 of (1 + j) = (2 + 3 + 4) x (3 + 4) = 63
NESTED_OUTER_BOUNDS = Chain(
    yaml("""
    name: chain
    title: nested sums, the inner bounds reading the outer index
    variables:
      a0: {value: 3, integer: true, max: 20}
      a1: {unit: "s", value: 2}
      a2: {unit: "s", domain: "real"}
      a3: {domain: "real"}
    equations:
      - "a2 = sum(sum(j * a1 for j in range(k)) for k in range(a0))"
      - "a3 = prod(sum(1 + j for j in range(k, 4)) for k in range(1, min(a0, 3)))"
    questions:
      q0: {find: "a0", such_that: "a2 <= 100[s]", seek: "max"}
    """),
    ({"a0": 5}, {"a0": 1, "a1": 0.5}),
    ("a1", "a2"),
    constructs=frozenset({"sum", "prod", "nested", "outer index in bounds"}),
)

# a joined model (u2 = u0 x (0 + ... + u1 - 1)), its u0 bound to 2 a0 and u1 to a1: a2 = a0 a1 (a1 - 1) + a0,
# 7 s at a0 = 1 s, a1 = 3. q0: lat 7 a0 <= 100 s allows 14.29 s, mem 6 a0 <= 60 s allows 10 s: a0 = 10 s, bound by mem.
# q1: a1 (a1 - 1) + 1 <= 50 up to a1 = 7; o.u2 >= 1 s from a1 = 2 on sets no limit above: a1 = 7. (u1's max keeps the
# whole-number search for the boundary short: without one it closes in on the sum_terms limit, some 20 s.)
JOINED_WITH_CONDITIONS = Chain(
    yaml("""
    name: chain
    title: a joined model, questions with several conditions
    uses:
      models:
        o: {model: sub/inner.yaml, given: {u0: "a0 * 2", u1: "a1"}}
    variables:
      a0: {unit: "s", value: 1}
      a1: {value: 3, integer: true, min: 1, max: 10}
      a2: {unit: "s", domain: "real"}
    equations:
      - "a2 = o.u2 + a0"
    questions:
      q0: {find: "a0", such_that: {"lat": "a2 <= 100[s]", "mem": "o.u2 <= 60[s]"}, seek: "max"}
      q1: {find: "a1", such_that: "a2 <= 50[s] and o.u2 >= 1[s]", seek: "max"}
    """),
    ({"a0": 2}, {"a1": 5}, {"a0": 0.5, "a1": 1}),
    ("a0", "a2"),
    files=(
        (
            "inner",
            yaml("""
            name: inner
            title: a joined model
            variables:
              u0: {unit: "s", value: 2}
              u1: {value: 3, integer: true, max: 10}
              u2: {unit: "s", domain: "nonnegative"}
            equations:
              - "u2 = u0 * sum(k for k in range(u1))"
            """),
        ),
    ),
    constructs=frozenset({"sum", "join", "conditions"}),
)

# a physical limit that fails at the defaults (3 s > 2 s) and holds at the other point (1.5 s): the solver's
# warnings and the modules' must name the same limits at each
WITH_A_LIMIT = Chain(
    yaml("""
    name: chain
    title: a physical limit
    variables:
      a0: {unit: "s", value: 1}
      a1: {unit: "s"}
    equations:
      - "a1 = 3 * a0"
    questions:
      q0: {find: "a0", such_that: "a1 <= 100[s]", seek: "max"}
    limits:
      bound: "a1 <= 2[s]"
    """),
    ({"a0": 0.5},),
    constructs=frozenset({"limits"}),
)

# a backwards query for an input with a value set: the found value is checked against the set
# (the generated modules printed `not lo <= x <= hi and _member(x, ...)`, which skipped the set)
SET_FOUND_BY_A_QUERY = Chain(
    yaml("""
    name: chain
    title: a set found by a query
    variables:
      a0: {unit: "token/s", value: 2, min: 2}
      a1: {unit: "s", value: 2, values: [2, 2.5]}
      a2: {value: 1, integer: true, min: 1}
      a3: {unit: "s", domain: "real"}
    equations:
      - "a3 = a1"
    """),
    ({},),
    ("a1", "a3"),
)

# a lookup read at a choice input's name, in an equation, a table's column and a question's condition
LOOKUP = Chain(
    yaml("""
    name: chain
    title: a lookup read by a choice
    lookups:
      l: {unit: "GB", values: {"bf16": 2, "fp8": 1, "int4": 0.5}}
    variables:
      a0: {value: 3, integer: true, min: 1, max: 10}
      a1: {choices: "l", value: "fp8"}
      a2: {unit: "GB"}
      a3: {unit: "GB"}
    equations:
      - "a2 = a0 * l[a1]"
      - "a3 = sum(t.c0)"
    tables:
      t:
        rows: "a0"
        columns:
          c0: {unit: "GB", formula: "l[a1] * i"}
    questions:
      q0: {find: "a0", such_that: "a2 <= 5[GB]", seek: "max"}
    """),
    ({"a1": "bf16"}, {"a1": "int4", "a0": 7}, {"a0": 2}),
    ("a0", "a2"),
    constructs=frozenset({"lookup"}),
)

CONSTRUCTS = {
    "nested apart": NESTED_APART,
    "outer index in terms": NESTED_OUTER_TERMS,
    "outer index in bounds": NESTED_OUTER_BOUNDS,
    "join": JOINED_WITH_CONDITIONS,
    "limits": WITH_A_LIMIT,
    "lookup": LOOKUP,
}

# every kind of search at once: an objective over a set, one over a bounded range (a free variable), a grid of two
# inputs with an inner question and a condition, and a frontier; the condition binds at some points
SEARCHES = Chain(
    yaml("""
    name: chain
    title: every kind of search
    variables:
      a0: {value: 2, integer: true, values: [1, 2, 4, 8]}
      a1: {unit: "ms", value: 10, min: 1, max: 100}
      a2: {value: 3}
      a3: {value: 0.5, min: 0.1, max: 2}
      a4: {unit: "ms"}
      a5: {unit: "token/s"}
      a6: {}
    equations:
      - "a4 = a1 / a0 + 2[ms] * a0 * a3 + 1[ms] / a3"
      - "a5 = a0 * a2 / a4 * 1[token]"
      - "a6 = a4 / 1[ms] + a2 * a0"
    questions:
      q0: {find: "a1", such_that: "a4 <= 20[ms]", seek: "max"}
      s0: {find: "a0", seek: "min a4", show: 3}
      s1: {find: "a3", seek: "min a4"}
      s2: {over: {"a0": [1, 2, 4, 8], "a2": [1, 3, 5]}, with: {"a1": "q0"}, such_that: {"lim": "a6 <= 31"}, seek: "max a5", show: 4}
    frontiers:
      f0: {x: "max a5", y: "min a4", over: {"a0": [1, 2, 4, 8], "a3": [0.3, 0.5, 1.2]}, such_that: {"lim": "a6 <= 40"}}
    """),
    ({"a2": 1}, {"a1": 40, "a3": 1}, {"a2": 6}),
    None,
    constructs=frozenset({"objective", "free", "grid", "frontier", "inner question"}),
)
