// lector_onnx.h — the C interface of Lector's ONNX Runtime sessions: the runtime's
// environment (one per process) and a session per network, each run on one float tensor
// in and one float tensor out. ONNX Runtime's own C API is versioned: built against
// Debian 13's header (API 21, ONNX Runtime 1.21), this runs on any library at least as
// new (PyPI's 1.32 on Debian 12), asking it for the header's API version.
//
// No C++ exception crosses this interface: every failure is a NULL or -1 return and a
// message in the caller's buffer. A session is run by one thread at a time.
#ifndef LECTOR_ONNX_H
#define LECTOR_ONNX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// ONNX Runtime's environment (owner: whoever created it; see lector_onnx_destroy).
/// Sessions made in it must be destroyed first.
typedef struct lector_onnx lector_onnx;

/// One loaded network (owner: whoever created it; see lector_onnx_session_destroy).
typedef struct lector_onnx_session lector_onnx_session;

/// How much ONNX Runtime rewrites a network's graph when it loads it (its
/// GraphOptimizationLevel): none, basic (constant folding, redundant nodes), extended
/// (fused operators), all (also the layout of convolutions for the CPU).
enum { LECTOR_ONNX_OPTIMIZE_NONE = 0, LECTOR_ONNX_OPTIMIZE_BASIC = 1, LECTOR_ONNX_OPTIMIZE_EXTENDED = 2, LECTOR_ONNX_OPTIMIZE_ALL = 3 };

/// The most dimensions a tensor in or out may have.
enum { LECTOR_ONNX_MAX_RANK = 8 };

/// Makes the environment (logging only errors, to stderr; telemetry off: sets
/// ORT_DISABLE_TELEMETRY=1 in the process's environment unless it is set, since PyPI's
/// library otherwise writes a device id under ~/.cache). NULL with `error` set when the
/// library does not offer the header's API version (a library older than the header).
lector_onnx *lector_onnx_create(char *error, size_t error_size);

/// The loaded library's version, as "1.32.0".
const char *lector_onnx_version(void);

/// Frees the environment. NULL is allowed.
void lector_onnx_destroy(lector_onnx *runtime);

/// Loads the network at `model_path` (one float input, one float output), run on
/// `threads` threads inside an operator (at least 1; no thread pool between operators),
/// its graph optimized at `optimization` (LECTOR_ONNX_OPTIMIZE_*). NULL with `error` set.
lector_onnx_session *lector_onnx_session_create(lector_onnx *runtime, const char *model_path, int threads, int optimization,
                                                char *error, size_t error_size);

/// Runs the network on `input` (`rank` dimensions `shape`, row-major floats). The
/// output's values are written to `*output` (the session's own memory, valid until the
/// next run or lector_onnx_session_destroy) and its dimensions to `output_shape`
/// (LECTOR_ONNX_MAX_RANK entries). Returns the output's rank, or -1 with `error` set.
int lector_onnx_session_run(lector_onnx_session *session, const float *input, const int64_t *shape, int rank,
                            const float **output, int64_t *output_shape, char *error, size_t error_size);

/// Frees the session. NULL is allowed.
void lector_onnx_session_destroy(lector_onnx_session *session);

#ifdef __cplusplus
}
#endif

#endif
