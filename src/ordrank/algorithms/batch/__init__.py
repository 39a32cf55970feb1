"""Batch ordinal learners: SVOR (cvxpy), the reduction to binary classification, ordered logit/probit, baselines."""
