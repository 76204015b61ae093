"""Draw query list E (METHOD.md, amendment 13): 16 of the 28 candidate messages and 12 of the 24
candidate silent symptoms, by a seeded random sample, with draw_list_c.draw. Silent reports weigh
more than in lists A-D (issue 32 asks that at least a third of the re-sample raise no error).
Run: python3 census/draw_list_e.py"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from draw_list_c import draw  # noqa: E402

# Messages as a learner types them (none in the words of lists A-D); the message it rewords, or
# the family it comes from, after the "#".
M = """pytorch error trying to backward a second time after optimizer step  # m01
pytorch inplace operation error version counter expected version 0 instead  # m02
pytorch leaf variable in-place error when initializing weights  # m03
pytorch loss does not have a grad_fn error after converting to numpy  # m04
pytorch grad can only be created for scalar outputs when using a loss per sample  # m05
pytorch can't call numpy on a tensor that requires grad, use detach  # m06
pytorch autograd grad one of the tensors appears to not have been used  # m07
pytorch inference tensors cannot be saved for backward after using inference_mode  # m09
pytorch can only change requires_grad flag of a leaf tensor error  # m10
pytorch optimizer can't optimize a non-leaf tensor after calling .to(device)  # m11
pytorch DDP error expected to have finished reduction in the prior iteration  # m12
pytorch error output of split is a view and is being modified inplace  # m14
pytorch custom autograd function returned an incorrect number of gradients  # m17
pytorch the derivative for this operation is not implemented error  # m19
pytorch function returned nan values in its output during backward  # m20
pytorch only floating point tensors can require gradients error  # m21
pytorch checkpoint use_reentrant warning and error during backward  # checkpointing
pytorch gradient checkpointing error recomputed tensor metadata mismatch  # checkpointing
pytorch DataParallel warning gathering scalars unsqueeze  # DataParallel
pytorch DDP double backward gradient penalty error  # DDP higher order
pytorch forward AD not supported for this operation jvp  # forward mode
pytorch deepcopy of a tensor that is not a leaf error  # copying graph tensors
pytorch anomaly detection slow training warning left enabled  # debugging modes
pytorch error using a model output after optimizer.step  # graph lifetime
pytorch GradScaler error unscale called twice  # mixed precision
pytorch torch.func vmap error in-place operation on a batched tensor  # function transforms
pytorch hook error module backward hook inplace  # hooks
pytorch error modifying parameter data during forward  # parameters""".splitlines()
S = """model loss goes down but validation accuracy stays at chance level
the loss does not decrease at all when training a simple network in pytorch
only the last layer of my network learns, the earlier weights never change
training with gradient accumulation gives worse results than a big batch
loss becomes nan after a few hundred iterations without any error
GPU memory increases every iteration until out of memory
my custom loss function does not change the weights
the weights of a layer I added are not updated by the optimizer
adding a regularization term to the loss has no effect
loss is zero after the first epoch
model outputs the same prediction for every input after training
frozen layers still change during training with weight decay
training loss differs when I use several GPUs with the same batch size
the gradient of my loss with respect to the parameters is None
learning rate scheduler seems to have no effect
evaluation results change when running the same model twice
using torch.no_grad during training makes the model not learn
the model trained in eval mode performs differently
the logged loss value is a tensor and memory grows
the second loss term does not affect training
training is much slower after I added gradient checkpointing
loss mean versus sum gives different results with the same learning rate
two copies of a model share the same parameters unexpectedly
my model learns on CPU but not after moving it to the GPU""".splitlines()

if __name__ == "__main__":
    draw(M, S, 16, 12, 2026112901, "x", "y")
