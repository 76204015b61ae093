"""Draw query list D (METHOD.md, amendment 11): 15 of the 24 candidate messages (list A's common
messages in a learner's own words) and 5 of the 12 candidate symptoms, by a seeded random sample,
with draw_list_c.draw. Run: python3 census/draw_list_d.py"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from draw_list_c import draw  # noqa: E402

# Each candidate rewords one message of list A (A1 id after the "#"), as a learner types it.
M = """pytorch error when calling backward twice in a loop  # m01
pytorch RuntimeError inplace operation gradient computation how to find which operation modified the tensor  # m02
pytorch in-place operation on a leaf variable that requires grad when updating weights manually  # m03
pytorch RuntimeError tensor does not require grad when calling backward on the loss  # m04
pytorch backward on a non-scalar output error, gradient must be given  # m05
pytorch cannot convert a tensor that requires grad to numpy  # m06
pytorch autograd.grad error the input tensor was not used to compute the output  # m07
pytorch autograd.grad error the input does not require grad  # m08
pytorch tensor created in inference mode cannot be used for backward  # m09
pytorch error setting requires_grad on a tensor that is not a leaf  # m10
pytorch optimizer error when given a tensor that is not a leaf  # m11
pytorch distributed training error parameters did not receive gradients find_unused_parameters  # m12
pytorch DDP error a parameter was marked ready twice  # m13
pytorch in-place change of a view returned by unbind or split raises an error  # m14
pytorch register_hook error on a tensor that does not require grad  # m16
pytorch custom autograd Function backward returns the wrong number of gradients  # m17
pytorch backward is not implemented for this operation  # m19
pytorch detect_anomaly which function returned nan in backward  # m20
pytorch requires_grad on an integer tensor raises an error  # m21
pytorch custom backward returns a gradient of the wrong shape  # m22
pytorch LSTM cudnn backward error when the model is in eval mode  # m31
pytorch warning reading .grad of a tensor that is not a leaf  # m34
pytorch create_graph=True backward warning reference cycle memory leak  # m35
pytorch gradient checkpointing warning none of the inputs require grad  # m36""".splitlines()
S = """training loss is constant and the network output never changes
nan values appear in the model weights in the middle of training
RAM usage keeps growing during the training loop until it crashes
training gets slower and slower the longer it runs
gradients from autograd do not match my manual calculation
freezing the backbone does not work, its parameters still change
GAN generator does not learn, discriminator loss goes to zero
fine-tuning a pretrained model, accuracy does not improve at all
batchnorm statistics still change in frozen layers during fine-tuning
gradient of the output with respect to the input is zero
model trains with one GPU but not with several GPUs
two models end up with identical weights after training""".splitlines()

if __name__ == "__main__":
    draw(M, S, 15, 5, 2026112511, "e", "h")
