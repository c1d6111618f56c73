//! Placeholder: the evaluator lands in the next commit.
