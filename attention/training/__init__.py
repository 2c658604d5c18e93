"""Training, live on a page or from the command line, and the recipes that make the shipped models.

tasks.py       the tiny tasks, each with its known right attention pattern
tiny.py        the tiny attention model and its trainer
induction.py   the induction task on the book's GPTModel, and its trainer
copying.py     the recipe for the bundled copy model (assets/model)
__main__.py    python -m attention.training ...
"""
