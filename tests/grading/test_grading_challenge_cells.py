"""A lesson notebook carries the exercise and, after the questions, its challenge (issue 29): each is graded on the
cell that writes its own file and on the check cell that follows it, not on the other one."""
from __future__ import annotations

from nbformat.v4 import new_code_cell, new_markdown_cell, new_output
from nbmaker import notebook, write

from grading.receipt import saved_check
from grading.source import read_notebook
from grading.spec import load_exercise

L8 = load_exercise("lesson08")
CH = load_exercise("lesson08_challenge")


def _lesson_with_challenge(tmp_path, lesson_out="lesson08 公开检查：x\n结论：A\n",
                           challenge_out="lesson08_challenge 公开检查：y\n结论：B\n"):
    nb = notebook("// the lesson's fill\n", target=L8.config["target"], check_output=lesson_out,
                  title="第 8 课：朴素转置与合并访存")
    nb.cells.append(new_markdown_cell("## 挑战（选做）"))
    nb.cells.append(new_code_cell(f"#| course_role: exercise\n%%writefile {CH.config['target']}\n// the challenge\n"))
    chk = new_code_cell(f'#| course_role: check\nreport = check("{CH.config["target"]}", "{CH.id}")')
    if challenge_out is not None:
        chk.outputs = [new_output("stream", name="stdout", text=challenge_out)]
    nb.cells.append(chk)
    return write(nb, tmp_path / "lesson08.ipynb")


def test_each_exercise_reads_its_own_cell(tmp_path):
    path = _lesson_with_challenge(tmp_path)
    sub = read_notebook(path, L8)
    assert sub.problem is None and sub.source == "// the lesson's fill\n" and not sub.notes
    sub = read_notebook(path, CH)
    assert sub.problem is None and sub.source == "// the challenge\n" and not sub.notes


def test_each_exercise_reads_its_own_check_output(tmp_path):
    path = _lesson_with_challenge(tmp_path, challenge_out=None)     # the challenge's check never ran
    for ex, expected in ((L8, "结论：A"), (CH, None)):
        sub = read_notebook(path, ex)
        saved = saved_check(sub.outputs, sub.output_roles, ex.id, sub.exercise_output, sub.calls_check)
        if expected is None:
            assert saved is None
        else:
            assert saved is not None and expected in "\n".join(saved.lines)


def test_two_cells_for_one_file_still_grade_the_last(tmp_path):
    nb = notebook("// first\n", target=L8.config["target"])
    nb.cells.append(new_code_cell(f"#| course_role: exercise\n%%writefile {L8.config['target']}\n// second\n"))
    sub = read_notebook(write(nb, tmp_path / "two.ipynb"), L8)
    assert sub.source == "// second\n" and any("最后一个" in n for n in sub.notes)
