// session.cpp — ONNX Runtime's C API behind lector_onnx.h: the environment, sessions
// with one thread each, and a run of one float tensor.
#include "lector_onnx.h"

#include <onnxruntime_c_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

struct lector_onnx {
    const OrtApi *api;
    OrtEnv *env;
};

struct lector_onnx_session {
    const OrtApi *api;
    OrtSession *session = nullptr;
    OrtMemoryInfo *memory = nullptr;
    std::string input_name, output_name;
    // The last run's output (owned; released at the next run).
    OrtValue *output = nullptr;
};

namespace {

void set_error(char *error, size_t size, const std::string &message) {
    if (error == nullptr || size == 0) return;
    std::snprintf(error, size, "%s", message.c_str());
}

// True when `status` is success; else the message (prefixed by `what`) goes to `error`
// and the status is released.
bool ok(const OrtApi *api, OrtStatus *status, const char *what, char *error, size_t error_size) {
    if (status == nullptr) return true;
    set_error(error, error_size, std::string(what) + ": " + api->GetErrorMessage(status));
    api->ReleaseStatus(status);
    return false;
}

// The session's input or output name `index` (copied; the allocator's string freed).
bool name_of(const OrtApi *api, OrtSession *session, bool input, std::string &name, char *error, size_t error_size) {
    OrtAllocator *allocator = nullptr;
    if (!ok(api, api->GetAllocatorWithDefaultOptions(&allocator), "ONNX Runtime's allocator", error, error_size)) return false;
    char *value = nullptr;
    OrtStatus *status = input ? api->SessionGetInputName(session, 0, allocator, &value)
                              : api->SessionGetOutputName(session, 0, allocator, &value);
    if (!ok(api, status, "the network's input and output", error, error_size)) return false;
    name = value;
    allocator->Free(allocator, value);
    return true;
}

}  // namespace

extern "C" lector_onnx *lector_onnx_create(char *error, size_t error_size) {
    // PyPI's library (1.32) records usage for Microsoft unless told not to, from the
    // environment's creation on: a device id and an event database in
    // ~/.cache/Microsoft/DeveloperTools/.onnxruntime, events sent over the network. Its
    // variable is read when the environment is made (DisableTelemetryEvents comes too
    // late for the files); an explicit ORT_DISABLE_TELEMETRY is kept.
    setenv("ORT_DISABLE_TELEMETRY", "1", 0);
    const OrtApi *api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
    if (api == nullptr) {
        set_error(error, error_size, std::string("ONNX Runtime ") + OrtGetApiBase()->GetVersionString() + " does not offer API version "
                                         + std::to_string(ORT_API_VERSION) + " (the header Lector was built with)");
        return nullptr;
    }
    OrtEnv *env = nullptr;
    if (!ok(api, api->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "lector", &env), "ONNX Runtime's environment", error, error_size)) return nullptr;
    if (!ok(api, api->DisableTelemetryEvents(env), "ONNX Runtime's telemetry", error, error_size)) {
        api->ReleaseEnv(env);
        return nullptr;
    }
    return new lector_onnx{api, env};
}

extern "C" const char *lector_onnx_version(void) { return OrtGetApiBase()->GetVersionString(); }

extern "C" void lector_onnx_destroy(lector_onnx *runtime) {
    if (runtime == nullptr) return;
    runtime->api->ReleaseEnv(runtime->env);
    delete runtime;
}

extern "C" lector_onnx_session *lector_onnx_session_create(lector_onnx *runtime, const char *model_path, int threads, int optimization,
                                                           char *error, size_t error_size) {
    const OrtApi *api = runtime->api;
    const std::string where = std::string("ONNX Runtime could not load ") + model_path;
    OrtSessionOptions *options = nullptr;
    if (!ok(api, api->CreateSessionOptions(&options), where.c_str(), error, error_size)) return nullptr;
    GraphOptimizationLevel level = optimization <= LECTOR_ONNX_OPTIMIZE_NONE ? ORT_DISABLE_ALL
        : optimization == LECTOR_ONNX_OPTIMIZE_BASIC                         ? ORT_ENABLE_BASIC
        : optimization == LECTOR_ONNX_OPTIMIZE_EXTENDED                      ? ORT_ENABLE_EXTENDED
                                                                             : ORT_ENABLE_ALL;
    auto *session = new lector_onnx_session{api};
    bool loaded = ok(api, api->SetIntraOpNumThreads(options, threads < 1 ? 1 : threads), where.c_str(), error, error_size)
        && ok(api, api->SetInterOpNumThreads(options, 1), where.c_str(), error, error_size)
        && ok(api, api->SetSessionExecutionMode(options, ORT_SEQUENTIAL), where.c_str(), error, error_size)
        && ok(api, api->SetSessionGraphOptimizationLevel(options, level), where.c_str(), error, error_size)
        // A worker that has no work sleeps instead of spinning (the recognizer pool's
        // threads are the parallelism; a spinning one would take their cores).
        && ok(api, api->AddSessionConfigEntry(options, "session.intra_op.allow_spinning", "0"), where.c_str(), error, error_size)
        && ok(api, api->CreateSession(runtime->env, model_path, options, &session->session), where.c_str(), error, error_size)
        && ok(api, api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &session->memory), where.c_str(), error, error_size)
        && name_of(api, session->session, true, session->input_name, error, error_size)
        && name_of(api, session->session, false, session->output_name, error, error_size);
    api->ReleaseSessionOptions(options);
    if (!loaded) {
        lector_onnx_session_destroy(session);
        return nullptr;
    }
    return session;
}

extern "C" int lector_onnx_session_run(lector_onnx_session *session, const float *input, const int64_t *shape, int rank,
                                       const float **output, int64_t *output_shape, char *error, size_t error_size) {
    const OrtApi *api = session->api;
    if (rank < 1 || rank > LECTOR_ONNX_MAX_RANK) {
        set_error(error, error_size, "an input of rank " + std::to_string(rank));
        return -1;
    }
    size_t count = 1;
    for (int i = 0; i < rank; i++) count *= static_cast<size_t>(shape[i] < 0 ? 0 : shape[i]);
    if (session->output != nullptr) {
        api->ReleaseValue(session->output);
        session->output = nullptr;
    }
    OrtValue *tensor = nullptr;
    if (!ok(api, api->CreateTensorWithDataAsOrtValue(session->memory, const_cast<float *>(input), count * sizeof(float), shape,
                                                     static_cast<size_t>(rank), ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &tensor),
            "the network's input", error, error_size)) {
        return -1;
    }
    const char *input_name = session->input_name.c_str(), *output_name = session->output_name.c_str();
    const OrtValue *inputs[1] = {tensor};
    bool ran = ok(api, api->Run(session->session, nullptr, &input_name, inputs, 1, &output_name, 1, &session->output),
                  "ONNX Runtime", error, error_size);
    api->ReleaseValue(tensor);
    if (!ran) return -1;
    OrtTensorTypeAndShapeInfo *info = nullptr;
    if (!ok(api, api->GetTensorTypeAndShape(session->output, &info), "the network's output", error, error_size)) return -1;
    size_t dimensions = 0;
    ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    bool described = ok(api, api->GetDimensionsCount(info, &dimensions), "the network's output", error, error_size)
        && ok(api, api->GetTensorElementType(info, &type), "the network's output", error, error_size);
    if (described && (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || dimensions < 1 || dimensions > LECTOR_ONNX_MAX_RANK)) {
        set_error(error, error_size, "the network's output is not a float tensor of rank 1 to 8");
        described = false;
    }
    described = described && ok(api, api->GetDimensions(info, output_shape, dimensions), "the network's output", error, error_size);
    api->ReleaseTensorTypeAndShapeInfo(info);
    if (!described) return -1;
    void *values = nullptr;
    if (!ok(api, api->GetTensorMutableData(session->output, &values), "the network's output", error, error_size)) return -1;
    *output = static_cast<const float *>(values);
    return static_cast<int>(dimensions);
}

extern "C" void lector_onnx_session_destroy(lector_onnx_session *session) {
    if (session == nullptr) return;
    const OrtApi *api = session->api;
    if (session->output != nullptr) api->ReleaseValue(session->output);
    if (session->memory != nullptr) api->ReleaseMemoryInfo(session->memory);
    if (session->session != nullptr) api->ReleaseSession(session->session);
    delete session;
}
