/* A tiny C extension that allocates device memory the way framework
 * extensions do: with the GIL released around the CUDA call (like PyTorch's
 * operators) or held (like simple bindings). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cuda_runtime_api.h>

static PyObject *alloc(PyObject *args, int release_gil)
{
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "n", &n))
        return NULL;
    void *p = NULL;
    cudaError_t rc;
    if (release_gil) {
        Py_BEGIN_ALLOW_THREADS
        rc = cudaMalloc(&p, (size_t)n);
        Py_END_ALLOW_THREADS
    } else {
        rc = cudaMalloc(&p, (size_t)n);
    }
    if (rc != cudaSuccess)
        return PyErr_Format(PyExc_MemoryError, "cudaMalloc failed: %d", (int)rc);
    return PyLong_FromVoidPtr(p);
}

static PyObject *alloc_nogil(PyObject *self, PyObject *args) { (void)self; return alloc(args, 1); }
static PyObject *alloc_gil(PyObject *self, PyObject *args) { (void)self; return alloc(args, 0); }

static PyMethodDef methods[] = {
    {"alloc_nogil", alloc_nogil, METH_VARARGS, "cudaMalloc(n) with the GIL released"},
    {"alloc_gil", alloc_gil, METH_VARARGS, "cudaMalloc(n) with the GIL held"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "gpuleak_testext", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_gpuleak_testext(void);
PyMODINIT_FUNC PyInit_gpuleak_testext(void) { return PyModule_Create(&module); }
