//! `hashlab.Hash`, the type of the hash objects, written against the C API
//! by hand (`PyType_FromSpec`), as hashlib's and xxhash's types are written
//! in C. A PyO3 class cost `xxh3_64(data).digest()` of 64 bytes 86 ns more
//! than xxhash's C object (191 against 105 ns): under abi3, PyO3 makes its
//! instances through the base type's `tp_new`, links them into the garbage
//! collector, moves the value in through an initializer and looks slots up
//! per instance. Here an object is one `PyObject_Malloc`, its fields written
//! in place, and one `PyObject_Free`; the methods are fast calls (METH_O
//! for `update`). Being made from a spec also lets the type be immutable,
//! as hashlib's are (CPython's `test_readonly_types`), which PyO3 does
//! under abi3 only from Python 3.14.

use std::ffi::{c_void, CStr};
use std::ptr::{addr_of_mut, null_mut};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;

use pyo3::exceptions::{PyAttributeError, PyMemoryError, PySystemError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyTuple, PyType};

use crate::guard::{guarded, positional_count};
use crate::hash::Hash;
use crate::made::Made;

/// What CPython allocates per object: the object header, then the state.
#[repr(C)]
struct HashObject {
    header: ffi::PyObject,
    hash: Hash,
}

/// The type, made once when the module is first imported; objects are made
/// and recognised through it.
static HASH_TYPE: AtomicPtr<ffi::PyTypeObject> = AtomicPtr::new(null_mut());

/// The type object, made at the module's first import (later imports, as
/// after `del sys.modules["hashlab"]`, get the same one).
pub(crate) fn hash_type(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    let made = type_made_once(py, &HASH_TYPE, type_spec)?;
    // SAFETY: a live type object, kept alive by the static's reference.
    Ok(unsafe { Bound::from_borrowed_ptr(py, made.cast()).cast_into_unchecked() })
}

/// The type in `cell`, made from `spec` the first time. The static keeps the
/// type's reference for the life of the process.
pub(crate) fn type_made_once(
    py: Python<'_>,
    cell: &AtomicPtr<ffi::PyTypeObject>,
    spec: fn() -> *mut ffi::PyType_Spec,
) -> PyResult<*mut ffi::PyTypeObject> {
    let made = cell.load(Ordering::Acquire);
    if !made.is_null() {
        return Ok(made);
    }
    // SAFETY: a spec and tables leaked for the life of the process, as a C
    // extension's are static; the GIL serialises module imports.
    let object = unsafe { ffi::PyType_FromSpec(spec()) };
    if object.is_null() {
        return Err(PyErr::fetch(py));
    }
    cell.store(object.cast(), Ordering::Release);
    Ok(object.cast())
}

/// The spec of a type of this extension: not a base type and made only by
/// the extension ("cannot create '...' instances"), immutable, as hashlib's
/// types are; `basicsize` is the object's whole size, header included.
pub(crate) fn sealed_type_spec(
    name: &'static CStr,
    basicsize: usize,
    slots: &'static mut [ffi::PyType_Slot],
) -> *mut ffi::PyType_Spec {
    Box::leak(Box::new(ffi::PyType_Spec {
        name: name.as_ptr(),
        basicsize: basicsize as i32,
        itemsize: 0,
        flags: (ffi::Py_TPFLAGS_DEFAULT
            | ffi::Py_TPFLAGS_DISALLOW_INSTANTIATION
            | ffi::Py_TPFLAGS_IMMUTABLETYPE) as _,
        slots: slots.as_mut_ptr(),
    }))
}

/// A new object of `object_type` holding `value`: one block from Python's
/// allocator, its header initialised (which takes a reference to the heap
/// type) before the value is written in place after it.
///
/// # Safety
/// `object_type` is a live type whose objects are `Object`s (a `#[repr(C)]`
/// header followed by the value) and whose dealloc frees them with
/// [`free_object`] after dropping the value.
pub(crate) unsafe fn new_object_of<'py, Object, Value>(
    py: Python<'py>,
    object_type: *mut ffi::PyTypeObject,
    value: Value,
    field: impl FnOnce(*mut Object) -> *mut Value,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: as the caller promises; the block is Object's size.
    unsafe {
        let object = ffi::PyObject_Malloc(std::mem::size_of::<Object>()) as *mut Object;
        if object.is_null() {
            return Err(PyMemoryError::new_err(()));
        }
        ffi::PyObject_Init(object.cast(), object_type);
        field(object).write(value);
        Ok(Bound::from_owned_ptr(py, object.cast()))
    }
}

/// Frees an object made by [`new_object_of`] whose value is dropped, and
/// gives back its reference to its type.
///
/// # Safety
/// Called once, from the type's dealloc, with the object's last reference gone.
pub(crate) unsafe fn free_object(object: *mut ffi::PyObject) {
    // SAFETY: as the caller promises.
    unsafe {
        let object_type = ffi::Py_TYPE(object);
        ffi::PyObject_Free(object.cast());
        ffi::Py_DECREF(object_type.cast());
    }
}

/// A new `hashlab.Hash` object in the initial state of `made`.
pub(crate) fn new_object(py: Python<'_>, made: Arc<Made>) -> PyResult<Bound<'_, PyAny>> {
    let object_type = HASH_TYPE.load(Ordering::Acquire);
    if object_type.is_null() {
        return Err(PySystemError::new_err(
            "hashlab.Hash is not ready: the hashlab module was not initialized",
        ));
    }
    // SAFETY: the Hash type's objects are HashObjects, freed by `dealloc`.
    unsafe {
        new_object_of(py, object_type, Hash::new(made), |o: *mut HashObject| {
            addr_of_mut!((*o).hash)
        })
    }
}

/// The state of `object` if it is a `hashlab.Hash`.
pub(crate) fn hash_of<'a>(object: &'a Bound<'_, PyAny>) -> Option<&'a Hash> {
    let pointer = object.as_ptr();
    // SAFETY: the type is compared before the object is read as a HashObject.
    unsafe {
        (ffi::Py_TYPE(pointer) == HASH_TYPE.load(Ordering::Acquire)).then(|| hash_at(pointer))
    }
}

/// # Safety
/// `object` is a live `hashlab.Hash` (CPython checks `self`'s type before
/// calling a method or getter of the type).
unsafe fn hash_at<'a>(object: *mut ffi::PyObject) -> &'a Hash {
    unsafe { &(*(object as *const HashObject)).hash }
}

fn type_spec() -> *mut ffi::PyType_Spec {
    let methods = Box::leak(Box::new([
        method(
            c"update",
            ffi::PyMethodDefPointer {
                PyCFunction: update,
            },
            ffi::METH_O,
            c"update($self, data, /)\n--\n\nAbsorbs more data (any C-contiguous buffer).",
        ),
        method(
            c"digest",
            ffi::PyMethodDefPointer {
                PyCFunctionFastWithKeywords: digest,
            },
            ffi::METH_FASTCALL | ffi::METH_KEYWORDS,
            c"digest($self, /, length=None)\n--\n\nThe digest of everything absorbed so far; \
              the object can go on absorbing. An extendable-output function gives `length` \
              bytes, any number (hashlib's `shake_128().digest(length)`).",
        ),
        method(
            c"hexdigest",
            ffi::PyMethodDefPointer {
                PyCFunctionFastWithKeywords: hexdigest,
            },
            ffi::METH_FASTCALL | ffi::METH_KEYWORDS,
            c"hexdigest($self, /, length=None)\n--\n\nAs digest(), in lowercase hex.",
        ),
        method(
            c"intdigest",
            ffi::PyMethodDefPointer {
                PyCFunction: intdigest,
            },
            ffi::METH_NOARGS,
            c"intdigest($self, /)\n--\n\nThe digest as an unsigned big-endian int, as \
              xxhash's objects give it, for the digests that are numbers (xxHash, the CRCs).",
        ),
        method(
            c"copy",
            ffi::PyMethodDefPointer { PyCFunction: copy },
            ffi::METH_NOARGS,
            c"copy($self, /)\n--\n\nAn independent copy in the same state.",
        ),
        method(
            c"reset",
            ffi::PyMethodDefPointer { PyCFunction: reset },
            ffi::METH_NOARGS,
            c"reset($self, /)\n--\n\nBack to the initial state, with the same parameters \
              (xxhash's reset()).",
        ),
        // SAFETY: a zeroed entry ends the table.
        unsafe { std::mem::zeroed() },
    ]));
    let getters = Box::leak(Box::new([
        getter(
            c"name",
            name,
            c"The algorithm's name as hashlib spells it (`sha3_256`, `shake_128`), or for \
              those hashlib lacks the canonical name with `-` as `_` (`xxh3_64`).",
        ),
        getter(
            c"backend",
            backend,
            c"The implementation that computes it (`openssl`, `rustcrypto`, ...).",
        ),
        getter(
            c"digest_size",
            digest_size,
            c"Output length in bytes; 0 for `shake_128()` and `shake_256()` made without a \
              length, as hashlib says.",
        ),
        getter(
            c"block_size",
            block_size,
            c"Internal block (or rate) size in bytes, as hashlib reports it.",
        ),
        // SHA-3's and SHAKE's sponge, as CPython's _sha3 objects show it;
        // AttributeError for other algorithms, as their hashlib objects have none.
        getter(
            c"_capacity_bits",
            capacity_bits,
            c"SHA-3 and SHAKE: the sponge's capacity in bits (1600 less the rate).",
        ),
        getter(
            c"_rate_bits",
            rate_bits,
            c"SHA-3 and SHAKE: the sponge's rate in bits.",
        ),
        getter(
            c"_suffix",
            suffix,
            c"SHA-3 and SHAKE: the first byte of the padding (b'\\x06', b'\\x1f').",
        ),
        ffi::PyGetSetDef::default(),
    ]));
    let slots = Box::leak(Box::new([
        slot(ffi::Py_tp_dealloc, dealloc as *mut c_void),
        slot(ffi::Py_tp_repr, repr as *mut c_void),
        slot(ffi::Py_tp_methods, methods.as_mut_ptr().cast()),
        slot(ffi::Py_tp_getset, getters.as_mut_ptr().cast()),
        slot(
            ffi::Py_tp_doc,
            c"A running hash: update, digest, hexdigest, copy, as hashlib's objects; \
              made by hashlab.new() and the named constructors."
                .as_ptr() as *mut c_void,
        ),
        ffi::PyType_Slot::default(),
    ]));
    // Not a base type, as hashlib's are not; made only by hashlab.new() and
    // the constructors.
    sealed_type_spec(c"hashlab.Hash", std::mem::size_of::<HashObject>(), slots)
}

fn method(
    name: &'static CStr,
    function: ffi::PyMethodDefPointer,
    flags: std::ffi::c_int,
    doc: &'static CStr,
) -> ffi::PyMethodDef {
    ffi::PyMethodDef {
        ml_name: name.as_ptr(),
        ml_meth: function,
        ml_flags: flags,
        ml_doc: doc.as_ptr(),
    }
}

fn getter(name: &'static CStr, get: ffi::getter, doc: &'static CStr) -> ffi::PyGetSetDef {
    ffi::PyGetSetDef {
        name: name.as_ptr(),
        get: Some(get),
        set: None,
        doc: doc.as_ptr(),
        closure: null_mut(),
    }
}

fn slot(slot: std::ffi::c_int, pfunc: *mut c_void) -> ffi::PyType_Slot {
    ffi::PyType_Slot { slot, pfunc }
}

unsafe extern "C" fn dealloc(object: *mut ffi::PyObject) {
    // SAFETY: CPython deallocates each object once, when its last reference
    // goes; the state is dropped, then the block freed and the type's
    // reference (taken by PyObject_Init) given back.
    unsafe {
        // Dropping returns the hasher to its pool and a held bytes object's
        // reference (given up first, with the GIL CPython deallocates with);
        // a panic there must not cross into C, and leaking is then the
        // lesser harm.
        let dropped = std::panic::catch_unwind(|| {
            hash_at(object).reset(Python::assume_attached());
            std::ptr::drop_in_place(addr_of_mut!((*(object as *mut HashObject)).hash))
        });
        drop(dropped);
        free_object(object);
    }
}

unsafe extern "C" fn update(
    object: *mut ffi::PyObject,
    data: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live `self` of this type and a borrowed argument.
        let (hash, data) = unsafe { (hash_at(object), Bound::from_borrowed_ptr(py, data)) };
        hash.absorb(py, &data)?;
        Ok(py.None().into_ptr())
    })
}

/// `length`, by position or by name, from a fast call of `method(length=None)`.
///
/// # Safety
/// `args` holds the positional arguments and then one value per name in
/// `kwnames` (a tuple, or NULL), all alive for the call.
unsafe fn given_length<'py>(
    py: Python<'py>,
    method: &str,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let positional = positional_count(nargs);
    if positional > 1 {
        return Err(PyTypeError::new_err(format!(
            "{method}() takes at most 1 argument ({positional} given)"
        )));
    }
    // SAFETY: `positional` arguments and the keyword values after them.
    let argument = |i: usize| unsafe { Bound::from_borrowed_ptr(py, *args.add(i)) };
    let mut length = (positional == 1).then(|| argument(0));
    if !kwnames.is_null() {
        // SAFETY: the tuple of keyword names CPython passes for the call.
        let names =
            unsafe { Bound::from_borrowed_ptr(py, kwnames).cast_into_unchecked::<PyTuple>() };
        for (i, name) in names.iter().enumerate() {
            let name = name.cast_into::<PyString>()?;
            if name.to_str()? != "length" {
                return Err(PyTypeError::new_err(format!(
                    "{method}() got an unexpected keyword argument '{name}'"
                )));
            }
            if length.is_some() {
                return Err(PyTypeError::new_err(format!(
                    "argument for {method}() given by name ('length') and position (1)"
                )));
            }
            length = Some(argument(positional + i));
        }
    }
    Ok(length.filter(|length| !length.is_none()))
}

unsafe extern "C" fn digest(
    object: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live `self` of this type and the call's arguments.
        let hash = unsafe { hash_at(object) };
        if nargs == 0 && kwnames.is_null() {
            return Ok(hash.digest(py)?.into_ptr());
        }
        // SAFETY: as above.
        let length = unsafe { given_length(py, "digest", args, nargs, kwnames)? };
        Ok(PyBytes::new(py, &hash.output(py, "digest", length.as_ref())?).into_ptr())
    })
}

unsafe extern "C" fn hexdigest(
    object: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live `self` of this type and the call's arguments.
        let (hash, length) = unsafe {
            (
                hash_at(object),
                given_length(py, "hexdigest", args, nargs, kwnames)?,
            )
        };
        Ok(hash.hexdigest(py, length.as_ref())?.into_ptr())
    })
}

unsafe extern "C" fn intdigest(
    object: *mut ffi::PyObject,
    _no_arguments: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: CPython passes a live `self` of this type.
    guarded(|py| Ok(unsafe { hash_at(object) }.intdigest(py)?.into_ptr()))
}

unsafe extern "C" fn copy(
    object: *mut ffi::PyObject,
    _no_arguments: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live `self` of this type.
        let hash = unsafe { hash_at(object) };
        let copy = new_object(py, Arc::clone(hash.made()))?;
        hash_of(&copy)
            .expect("new_object makes a hashlab.Hash")
            .copy_state_from(py, hash);
        Ok(copy.into_ptr())
    })
}

unsafe extern "C" fn reset(
    object: *mut ffi::PyObject,
    _no_arguments: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live `self` of this type.
        unsafe { hash_at(object) }.reset(py);
        Ok(py.None().into_ptr())
    })
}

unsafe extern "C" fn repr(object: *mut ffi::PyObject) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live object of this type.
        let text = unsafe { hash_at(object) }.repr();
        Ok(PyString::new(py, &text).into_ptr())
    })
}

unsafe extern "C" fn name(object: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live object of this type.
        let name = unsafe { hash_at(object) }.python_name();
        Ok(PyString::new(py, name).into_ptr())
    })
}

unsafe extern "C" fn backend(object: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live object of this type.
        let backend = unsafe { hash_at(object) }.backend_name();
        Ok(PyString::new(py, backend).into_ptr())
    })
}

unsafe extern "C" fn digest_size(object: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live object of this type.
        let size = unsafe { hash_at(object) }.digest_size();
        Ok(size.into_pyobject(py)?.into_ptr())
    })
}

/// Keccak-f[1600]'s state, in bits: rate plus capacity.
const KECCAK_WIDTH_BITS: usize = 1600;

/// The sponge of a SHA-3 or SHAKE object, or AttributeError naming `what`.
///
/// # Safety
/// `object` is a live object of this type.
unsafe fn sponge_of(object: *mut ffi::PyObject, what: &str) -> PyResult<(u8, usize)> {
    // SAFETY: passed on from the caller.
    let hash = unsafe { hash_at(object) };
    hash.fips202_sponge().ok_or_else(|| {
        PyAttributeError::new_err(format!(
            "'{}' object has no attribute '{what}' (only SHA-3 and SHAKE objects have it)",
            hash.python_name()
        ))
    })
}

unsafe extern "C" fn capacity_bits(
    object: *mut ffi::PyObject,
    _: *mut c_void,
) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live object of this type.
        let (_, rate) = unsafe { sponge_of(object, "_capacity_bits") }?;
        Ok((KECCAK_WIDTH_BITS - rate).into_pyobject(py)?.into_ptr())
    })
}

unsafe extern "C" fn rate_bits(object: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live object of this type.
        let (_, rate) = unsafe { sponge_of(object, "_rate_bits") }?;
        Ok(rate.into_pyobject(py)?.into_ptr())
    })
}

unsafe extern "C" fn suffix(object: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live object of this type.
        let (suffix, _) = unsafe { sponge_of(object, "_suffix") }?;
        Ok(PyBytes::new(py, &[suffix]).into_ptr())
    })
}

unsafe extern "C" fn block_size(object: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: CPython passes a live object of this type.
        let size = unsafe { hash_at(object) }.block_size();
        Ok(size.into_pyobject(py)?.into_ptr())
    })
}
