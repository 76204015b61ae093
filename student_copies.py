"""nbconvert configuration for the student copies (`make student`, and the check in conftest.py).

A student copy is the notebook with the cells tagged ``solution`` removed and every output
cleared; nothing else changes, so the exercise cells (``answer = ...``) and the check cells
after them stay, and each check prints "Not answered yet" until the student answers.
"""

c = get_config()  # noqa: F821 (provided by traitlets when nbconvert loads this file)
c.NbConvertApp.export_format = "notebook"
c.TagRemovePreprocessor.enabled = True
c.TagRemovePreprocessor.remove_cell_tags = {"solution"}
c.ClearOutputPreprocessor.enabled = True
