"""Read and write Arrow IPC Tensor and SparseTensor messages from Python.

arrowsparse reads and writes the stand-alone IPC messages that carry
tensors, one message at a time, exactly as Arrow C++ 25 (and the
arrowsparse Go library) write them. pyarrow has the tensor classes but no
reader or writer for SparseTensor messages; this package fills that gap and
returns pyarrow objects.

Functions
---------
read_message(source, *, with_metadata=False, max_metadata_size=64 MiB, max_body_size=64 GiB)
    One message from bytes, a buffer, a path (memory-mapped) or a binary
    file, as a ``pyarrow.Tensor``, ``SparseCOOTensor``, ``SparseCSRMatrix``,
    ``SparseCSCMatrix`` or ``SparseCSFTensor`` (or a :class:`Message` with
    the wire layout and GCS mapping).
write_message(obj, dest, *, index_type=None, indptr_type=None, gcs=None) -> int
    One message, byte-identical to Arrow C++'s for the same content.
message_bytes(obj, *, index_type=None, indptr_type=None, gcs=None) -> bytes
    The bytes write_message would write.

Errors
------
Bad input never gives wrong data. Every defect of a message read, and every
tensor that cannot be written as Arrow C++ would write it, raises
:class:`ArrowSparseError` (a ``ValueError``). Besides it, callers can see
``TypeError`` for an argument of an unsupported type and ``OSError`` for a
file that cannot be opened, mapped or written. Nothing else is raised for
bad bytes; the test suite checks this on thousands of corrupted messages.

Memory
------
Reading does not copy tensor values: they are numpy views of the input
(which must then not be modified). pyarrow's sparse constructors accept
only C-contiguous int64 indices, so index arrays of other integer types and
column-major COO coordinates are converted (copied); int64 row-major
indices are not.

Extension types
---------------
COOType, CSRType, CSCType, CSFType, GCSType
    pyarrow extension types ``arrowsparse.coo`` … ``arrowsparse.gcs``
    (arrowext/SPARSE.md): one sparse tensor per row of a column, storage a
    struct of lists named after the binsparse arrays. ``import arrowsparse``
    registers them with pyarrow (:func:`register`, idempotent;
    :func:`unregister` undoes it), so IPC files and streams and Parquet
    files read as typed columns (:class:`SparseTensorArray`, whose rows are
    :class:`SparseTensorScalar` with ``to_scipy``/``to_pydata``/
    ``to_pyarrow``/``to_numpy``).
from_sparse(objs, format="coo", ...)
    A column from scipy, pydata, pyarrow or numpy objects (None: null).
csr_to_vectors(m) / vectors_to_csr(col)
    A column of sparse vectors from one scipy CSR matrix and back, sharing
    the index and value arrays.
rewrap(table_or_array)
    Columns read without the types registered (storage plus the
    ``ARROW:extension:*`` field metadata) back into the extension types.
fixed_shape_tensor_to_numpy, variable_shape_tensor_to_numpy, ..._row
    NumPy views of Arrow's canonical dense tensor columns, following the
    spec's permutation rule (pyarrow 25's own conversion is wrong for
    permutations that are not involutions).

Optional packages
-----------------
scipy and pydata ``sparse`` are never imported by arrowsparse itself; their
objects are accepted by write_message when the caller passes them.
"""

from ._errors import ArrowSparseError
from ._ext_build import csr_to_vectors, from_sparse, vectors_to_csr
from ._ext_meta import EXTENSION_NAMES
from ._ext_types import (COOType, CSCType, CSFType, CSRType, GCSType, SparseTensorArray,
                         SparseTensorScalar, SparseTensorType, register, rewrap, type_from_storage,
                         unregister)
from ._gcs import GCS_METADATA_KEY, GCSMetadata
from ._read import Message, TensorLike, read_message
from ._wire import DEFAULT_MAX_BODY_SIZE, DEFAULT_MAX_METADATA_SIZE
from ._tensor_ext import (fixed_shape_tensor_row, fixed_shape_tensor_to_numpy,
                          variable_shape_tensor_row, variable_shape_tensor_to_numpy)
from ._write import message_bytes, write_message

__version__ = "0.1.0"

__all__ = [
    "ArrowSparseError",
    "COOType",
    "CSCType",
    "CSFType",
    "CSRType",
    "EXTENSION_NAMES",
    "GCSType",
    "SparseTensorArray",
    "SparseTensorScalar",
    "SparseTensorType",
    "csr_to_vectors",
    "fixed_shape_tensor_row",
    "fixed_shape_tensor_to_numpy",
    "from_sparse",
    "register",
    "rewrap",
    "type_from_storage",
    "unregister",
    "variable_shape_tensor_row",
    "variable_shape_tensor_to_numpy",
    "vectors_to_csr",
    "DEFAULT_MAX_BODY_SIZE",
    "DEFAULT_MAX_METADATA_SIZE",
    "GCSMetadata",
    "GCS_METADATA_KEY",
    "Message",
    "TensorLike",
    "message_bytes",
    "read_message",
    "write_message",
]

# The extension types are registered on import; a second registration (a
# reload, another copy) is skipped, never an error.
register()
