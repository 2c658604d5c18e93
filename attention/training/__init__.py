"""Training, live on a page or from the command line, and the recipes that make the shipped models.

run.py         the Run contract every live training implements: step, snapshot, pace, pause,
               stop and save, safe from any thread at any moment; who holds and plays a run
shared.py      runs by their settings: one training for a class on the same settings
tasks.py       the tiny tasks, each with its known right attention pattern
tiny.py        the tiny attention model and its Run (Trainer, TrainConfig)
induction.py   the induction task on the book's GPTModel and its Run (InductionTrainer)
copying.py     the recipe for the bundled copy model (assets/model)
shakespeare.py the recipe for the Shakespeare model (assets/shakespeare); plays.py its text
held_out_text.py  how well a language model reads the held-out plays, position by position
__main__.py    python -m attention.training ...
"""
