/* fakecuda's libnvidia-ml.so.1 (fc_nvml.c): the few NVML functions
 * PyTorch's libc10_cuda.so looks up, with NVML's ABI (no nvml.h ships with
 * the toolkit). */
#ifndef FC_NVML_H
#define FC_NVML_H

#define FC_NVML_API __attribute__((visibility("default")))

typedef int nvmlReturn_t;
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
};
typedef struct fc_nvml_device *nvmlDevice_t;

FC_NVML_API nvmlReturn_t nvmlInit_v2(void);
FC_NVML_API nvmlReturn_t nvmlInit(void);
FC_NVML_API nvmlReturn_t nvmlShutdown(void);
FC_NVML_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pci_bus_id, nvmlDevice_t *device);
FC_NVML_API nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, void *info);
FC_NVML_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned *count, void *infos);
FC_NVML_API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned length);
FC_NVML_API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *version);
FC_NVML_API nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned link, int *type);
FC_NVML_API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned link, void *pci);
FC_NVML_API const char *nvmlErrorString(nvmlReturn_t result);

#endif
