"""User-interface strings of the site, in Simplified Chinese (Quarto's ``_language-zh.yml`` wording)."""
from __future__ import annotations

LANG = "zh"

CALLOUT_TITLES = {
    "note": "注释",
    "tip": "提示",
    "warning": "警告",
    "important": "重要",
    "caution": "危险",
}
CROSSREF_TITLES = {"fig": "图", "tbl": "表格"}
SECTION_TITLE = "小节"  # Quarto's zh crossref prefix for @sec- references
TITLE_DELIM = "："  # _quarto.yml sets crossref.title-delim to the same full-width colon

UI = {
    "answer_branch": "参考答案版",
    "exercise_branch": "练习版",
    "prev": "上一页",
    "next": "下一页",
    "download_notebook": "下载本页笔记本（.ipynb）",
    "renderer_note": "本页由 Jupyter 工具（nbclient + nbconvert）生成；装有 Quarto 时由 Quarto 渲染。",
    "mermaid_missing": "流程图需要 Mermaid 脚本，但构建时未能获取（npm 不可用）；下面显示的是流程图源码。",
    "widget_static": "（交互控件只能在 Jupyter 中运行本课笔记本时使用；静态页面展示的是预先渲染的视图。）",
    "code": "代码",
    "exercise_blurb": "学生用：每课的代码填空与检查单元，不含参考答案。",
    "answer_blurb": "教师用：在练习版之外，每课末尾有折叠的参考答案与问答题解析。",
    "notebooks": "学生包（.zip）",
    "notebooks_blurb": "练习版的全部 Jupyter 笔记本和运行它们所需的 Python 包（解压后 pip install .）；"
                       "它在 exercise/ 文件夹里，随学生站点一起发布。",
    "landing_lead": "同一套课程的两个版本：先在练习版里动手，再到参考答案版核对。",
    "landing_publish": "本页是教师入口。发布给学生的只有 exercise/ 文件夹（练习版网站和学生包，不链接任何答案）；"
                       "answer/ 与本页留在教师手里。",
    "download_kit": "下载学生包（.zip）",
    "kit_note": "笔记本要用学生包里的 Python 包（labsim 模拟器、画图、只含公开检查的评分）运行，不需要 GPU："
                "解压后在文件夹里执行 python3 -m venv .venv && . .venv/bin/activate && pip install .，"
                "再 jupyter lab lessons/ 打开笔记本。",
    "kit_home_title": "学生包：在自己的电脑上运行本课程",
    "kit_home": "全部练习笔记本和运行它们所需的 Python 包打包在一个 zip 里，不需要 GPU；"
                "H200 的实测记录也在包里，课里的 H200 对照表在本机照样显示。",
    "landing_renderer": "本站由 python -m coursebuild 构建，渲染器：{renderer}。",
    "site_home": "课程首页",
}
