"""What differs between PyTorch 1.13 (Debian 12) and 2.x, in one place."""
import contextlib

import torch
import torch.utils.checkpoint

try:  # weak references to a C++ storage: expired() says when PyTorch freed it
    from torch.multiprocessing.reductions import StorageWeakRef
except ImportError:  # pragma: no cover - present in 1.13 and 2.x
    StorageWeakRef = None

try:
    from torch.utils._python_dispatch import TorchDispatchMode
except ImportError:  # pragma: no cover
    TorchDispatchMode = None

# PyTorch 2.4+: selective checkpointing (a policy per op); None before.
# Detected by name, not by version: it became public mid-2024, renamed from
# a private generator.
create_selective_checkpoint_contexts = getattr(torch.utils.checkpoint, "create_selective_checkpoint_contexts", None)
CheckpointPolicy = getattr(torch.utils.checkpoint, "CheckpointPolicy", None)
# PyTorch 2.x stops a non-reentrant re-run once it has rebuilt what the
# backward needs; remat counts a re-run whole, so it is switched off there.
_set_checkpoint_early_stop = getattr(torch.utils.checkpoint, "set_checkpoint_early_stop", None)


def checkpoint_early_stop(enabled):
    """A context: PyTorch 2's early stop of a re-run on or off (1.13 has none)."""
    return contextlib.nullcontext() if _set_checkpoint_early_stop is None else _set_checkpoint_early_stop(enabled)


def no_dispatch_modes():
    """A context in which no TorchDispatchMode sees the ops run."""
    from torch.utils._python_dispatch import _disable_current_modes
    return _disable_current_modes()


def storage_of(tensor):
    """The storage behind a tensor (a view resolves to its whole storage)."""
    if hasattr(tensor, "untyped_storage"):
        return tensor.untyped_storage()
    return tensor.storage()


def storage_key(tensor):
    """Identifies a storage while it is alive (its data pointer, or its
    C++ object for empty storages)."""
    storage = storage_of(tensor)
    return storage.data_ptr() or storage._cdata


def storage_bytes(tensor):
    return storage_of(tensor).nbytes()


def checkpoint(function, *args, **kwargs):
    """torch.utils.checkpoint, non-reentrant, restoring the RNG state so that
    dropout draws the same masks when a segment is re-run."""
    from torch.utils.checkpoint import checkpoint as torch_checkpoint
    return torch_checkpoint(function, *args, use_reentrant=False, preserve_rng_state=True, **kwargs)
