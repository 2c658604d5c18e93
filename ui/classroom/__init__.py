"""Class mode: a session in a class, as a student or as its teacher (membership.py); the
predict-first questions answered for the class and held until the teacher reveals them, with the
teacher's live histogram (questions.py); the Class page: start, join, the code and its QR code,
export, close (page.py). The store and its rules are attention.classroom."""
