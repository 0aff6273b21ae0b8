"""The shipped card classifier (ONNX) and the recipe that trains it."""
