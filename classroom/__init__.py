"""The classroom side of the collection: student copies and grading, both through nbgrader."""
