"""Draw query list C (METHOD.md, amendment 9): 22 of the 46 candidate messages and 7 of the 14
candidate symptoms, by a seeded random sample. Run: python3 census/draw_list_c.py"""
import random
M = """cannot resize variables that require grad
Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior
To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone()
can't retain_grad on Tensor that has requires_grad=False
attempting to assign a gradient of size
data set to a tensor that requires gradients must be floating point or complex dtype
Double backwards is not supported for CuDNN RNNs due to limitations in the CuDNN API
Inplace update to inference tensor outside InferenceMode is not allowed
Functions which modify views in-place must return a single Variable
invalid number of gradients - expected
returned a gradient different than None at position 1, but the corresponding forward input was not a Variable
save_for_backward can only save variables, but argument
Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment
Expected isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex) to be true
Mismatch in dtype: grad_output[0] has a dtype of
Inference tensors do not track version counter
Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated
Full backward hook is firing when gradients are computed with respect to module outputs since no inputs require gradients
Backward hook returned an invalid number of grad_input
cannot assign 'torch.FloatTensor' as parameter 'weight' (torch.nn.Parameter or None expected)
optimizer got an empty parameter list
some parameters appear in more than one parameter group
params argument given to the optimizer should be an iterable of Tensors or dicts
loaded state dict contains a parameter group that doesn't match the size of optimizer's group
Adam does not support sparse gradients, please consider SparseAdam instead
Detected call of `lr_scheduler.step()` before `optimizer.step()`
Attempting to unscale FP16 gradients
unscale_() has already been called on this optimizer since the last update()
The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped
DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient
torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly
torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than during the forward pass
torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once
Jacobian mismatch for output 0 with respect to input 0
Input #0 requires gradient and is not a double precision floating point or complex
The output of the user-provided function is independent of input 0. This is not allowed in strict mode
backward() called inside a functorch transform. This is not supported, please use functorch.grad or functorch.vjp instead
vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a Tensor
Can't call apply_() on Variable that requires grad. Use var.detach().apply_() instead
Deletion of _grad_fn not allowed. Detach tensor instead
Tensor post accumulate grad hooks should return None
expected Variable, but hook returned
is a view and its base or another view of its base has been modified inplace
An input that has been returned as-is as output is being saved for backward. This is not supported if you override setup_context
Cannot input a tensor that requires grad as a scalar argument
the pack hook raised before saving data for this tensor""".splitlines()
S = """model predicts the same output for every input
training accuracy stuck at chance level
loss goes up instead of down during training
gradients explode, gradient norm very large
first layers get no gradient, vanishing gradient
training much slower after adding a custom loss
weights become nan after optimizer step
model trains on CPU but not on GPU
loss decreases but accuracy does not change
training diverges after resuming from a checkpoint
custom loss function not working, model does not learn
torch.autograd.grad returns None
results different every time I call backward
loss is negative or impossible values after backward""".splitlines()


def draw(M, S, n_m, n_s, seed, m_prefix, s_prefix):
    """Print the seeded draw of n_m of the messages M and n_s of the symptoms S as table rows."""
    print(len(M), len(S))
    r = random.Random(seed)
    m = sorted(r.sample(range(len(M)), n_m)); s = sorted(r.sample(range(len(S)), n_s))
    for i, k in enumerate(m, 1): print(f"| {m_prefix}{i:02d} | {M[k]} |")
    for i, k in enumerate(s, 1): print(f"| {s_prefix}{i:02d} | {S[k]} |")


if __name__ == "__main__":
    draw(M, S, 22, 7, 20261125, "c", "d")
