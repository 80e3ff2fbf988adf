"""Learner code for the code-layer-norm exercise, shared by the web, queue and export tests."""

GOOD = """import numpy as np

def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
"""
NO_EPS = GOOD.replace("np.sqrt(var + eps)", "np.sqrt(var)")  # the "forgot epsilon" mistake
