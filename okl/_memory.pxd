# Small memory helpers of the typed core, inlined where they are used.

from libc.stdlib cimport realloc


cdef inline int _grow(void** p, size_t nbytes) noexcept nogil:
    """``realloc`` in place of ``*p``; -1 (and ``*p`` untouched) if out of memory."""
    cdef void* q = realloc(p[0], nbytes)
    if q == NULL:
        return -1
    p[0] = q
    return 0
