"""Learning from another assistant's history: a ChatGPT or Claude export read as a stream (exports.py), each
format's conversation read into one shape (formats.py), and the preview a user sees before anything is learnt
(preview.py)."""
