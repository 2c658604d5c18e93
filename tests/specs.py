"""Reading plotly figure specs as they travel to the browser."""

import base64

import numpy as np


def decode(value):
    """A plotly typed array ({dtype, bdata, shape}) or a list -> numpy array."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(
            base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]).newbyteorder("<")
        )
        if value.get("shape"):
            array = array.reshape([int(d) for d in str(value["shape"]).split(",")])
        return array
    return np.asarray(value, dtype=float)
