"""unwrap_conditionals: decided conditional divs lose their fences, everything else keeps them."""
from __future__ import annotations

from coursebuild.context import BuildContext
from coursebuild.qmd import Div, parse_qmd, write_qmd
from coursebuild.transforms import SOURCE_PIPELINE, run_pipeline
from coursebuild.transforms.select_branch import select_branch
from coursebuild.transforms.unwrap_conditionals import unwrap_conditionals


def _run(src, branch, fmt):
    ctx = BuildContext(branch, fmt)
    return unwrap_conditionals(select_branch(parse_qmd(src), ctx), ctx)


def test_unwraps_profile_div_keeps_callout():
    src = ('::: {.content-visible when-profile="answer"}\n::: {.callout-tip title="T"}\nA\n:::\n:::\n')
    doc = _run(src, "answer", None)
    assert write_qmd(doc) == '::: {.callout-tip title="T"}\nA\n:::\n'


def test_format_condition_kept_for_quarto_but_unwrapped_for_html():
    src = '::: {.content-visible when-format="html"}\nH\n:::\n'
    assert write_qmd(_run(src, "answer", None)) == src
    assert write_qmd(_run(src, "answer", "html")) == "H\n"


def test_conditional_with_other_classes_keeps_fences():
    src = '::: {.content-visible .box when-profile="answer"}\nA\n:::\n'
    doc = _run(src, "answer", "html")
    assert isinstance(doc.children[0], Div) and doc.children[0].attrs.classes == ["content-visible", "box"]


def test_exercise_qmd_has_no_profile_conditions_left():
    src = ('::: {.content-visible when-profile="exercise"}\nE\n:::\n'
           '::: {.content-visible when-profile="answer"}\nA\n:::\n')
    out = write_qmd(run_pipeline(parse_qmd(src), BuildContext("exercise", None), SOURCE_PIPELINE))
    assert out == "E\n"
