"""Exercise files an attacker with an instructor's account might write: formulas that are each within the
size limits but slow, slow only at some seeds, or broken at most draws."""

from __future__ import annotations

# About 10 ms of processor time at n = 20000 (np.vectorize'd erf), 0.1 s for ten such steps: far under
# the old limit of 0.5 s per run of the steps, so that limit alone never stopped a draw.
_TERM = "erf(arange(n) / 7)"


def heavy_steps(count: int, indent: str = "  ") -> str:
    """`count` compute steps of about 10 ms each (at n = 20000), named h0, h1, ..."""
    return "".join(f"{indent}h{i}: sum({' + '.join([_TERM] * 8)})\n" for i in range(count))


HEAVY_STEPS = heavy_steps(10)


def numeric(exercise_id: str, lesson: str, params: str, compute: str, well_posed: str = "") -> str:
    """A formula exercise with these parameters, steps (the last, y, asked for) and conditions."""
    return f"""id: {exercise_id}
title: Hostile formulas
lesson: {lesson}
model: formula
params:
{params}compute:
{compute}  y: n * 2
{well_posed}mistakes:
  halved:
    title: y halved
    hint: Double n.
    replace: {{y: n}}
prompt: |
  Compute y from n = {{{{n}}}}.
parts:
  - {{id: y, label: y, type: scalar, quantity: y, tolerance: {{abs: 0.01}}, misconceptions: [halved]}}
solution:
  - "y = {{{{y}}}}."
"""


# Every draw is slow and none is well posed: without one budget for all draws, each of 500 draws spent
# its own 0.35 s, about three minutes a page.
SLOW = numeric("slow-formulas", "hostile", "  n: {random: {low: 19999, high: 20000}}\n", HEAVY_STEPS,
               "well_posed:\n  - y < 0\n")  # fmt: skip

# Quick at seeds 0 to 19, and about 1 s a variant (three runs of the steps) at 2 seeds in 5 elsewhere. The lesson name is one of the few whose
# parameter draws are quick at all of seeds 1 to 19 (found by a search; seed 0 is the page's k = 0), as an
# attacker would pick it to pass a save check with fixed seeds.
LURKING = numeric("lurking-formulas", "lurking-24287",
                  "  k: {random: {choices: [0, 0, 0, 1, 1]}, page: 0}\n",
                  "  n: 1 + 19999 * k\n" + heavy_steps(30))  # fmt: skip

# A step too large for 7 draws in 10: refused at once now, but each such draw is only redrawn.
BREAKING = numeric("breaking-formulas", "hostile", "  k: {random: {low: 0.0, high: 1.0, decimals: 2}, page: 0.1}\n",
                   "  n: size(arange(where(k > 0.3, 30000, 10)))\n")  # fmt: skip

# A code exercise whose formula reference is slow for inputs with a positive first entry: about 0.2 s a
# case, under the old 0.5 s per run, and about 4 s for a submission's 40 cases.
SLOW_CODE = """id: slow-code
title: Hostile reference
lesson: code
kind: code
task: formula
prompt: Write `double(x)`.
stub: |
  def double(x):
      raise NotImplementedError
reference:
  function: double
  args: [x]
  returns: y
  compute:
    n: 1 + 19999 * (x[0] > 0)
""" + heavy_steps(20, "    ") + """    y: x * 2
  inputs:
    x: {shape: [3], random: {low: -1.0, high: 1.0, decimals: 2}}
cases: {random: 40}
tolerance: {rtol: 1e-6, atol: 1e-9}
"""
