/* A stand-in for NVIDIA's management library, libnvidia-ml.so.1, as far
 * as PyTorch's CUDA library asks it: c10_cuda dlopens it and, before an
 * expandable segment maps its first page, looks the device up by PCI bus
 * id and asks whether it is in an NVLink fabric (get_fabric_access).  On a
 * machine with NVIDIA's driver the library is always there; without it
 * PyTorch calls a null pointer.  It answers as NVML does for a PCIe card
 * outside a fabric.  The devices are fakecuda's (FAKECUDA_DEVICES, default
 * 2): device N is at 0000:N+1:00.0, as fc_driver_device.c's
 * cuDeviceGetPCIBusId says.  No nvml.h ships with the toolkit, so the few
 * types come from NVML's documented ABI. */
#include "fc_nvml.h"

#include <stdio.h>
#include <stdlib.h>

#include "fc_internal.h"
#include "fc_gpu.h"

struct fc_nvml_device {
    unsigned index;
};


#define FC_NVML_MAX_DEVICES 64
static struct fc_nvml_device fc_nvml_devices[FC_NVML_MAX_DEVICES];

/* FAKECUDA_DEVICES, read the way fc_state.c reads it. */
static unsigned fc_nvml_device_count(void)
{
    const char *s = getenv("FAKECUDA_DEVICES");
    unsigned long n = s && *s ? strtoul(s, NULL, 10) : 2;
    return n > FC_NVML_MAX_DEVICES ? FC_NVML_MAX_DEVICES : (unsigned)n;
}

nvmlReturn_t nvmlInit_v2(void)
{
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit(void)
{
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void)
{
    return NVML_SUCCESS;
}

/* "domain:bus:device.function" in hex, the domain 4 or 8 digits. */
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pci_bus_id,
                                                                                      nvmlDevice_t *device)
{
    unsigned domain, bus, dev, fn;
    if (!pci_bus_id || !device)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (sscanf(pci_bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (domain != 0 || dev != 0 || fn != 0 || bus == 0 || bus > fc_nvml_device_count())
        return NVML_ERROR_NOT_FOUND;
    fc_nvml_devices[bus - 1].index = bus - 1;
    *device = &fc_nvml_devices[bus - 1];
    return NVML_SUCCESS;
}

/* A card outside an NVLink fabric (PCIe, no NVSwitch): not supported, the
 * answer PyTorch takes as "no fabric handles". */
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, void *info)
{
    if (!device || !info)
        return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_ERROR_NOT_SUPPORTED;
}

/* No other process runs on a fakecuda device; this one's allocations are
 * not NVML's to list either (PyTorch asks only to word an OOM message). */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device,
                                                                                          unsigned *count, void *infos)
{
    (void)infos;
    if (!device || !count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *count = 0;
    return NVML_SUCCESS;
}

/* The card's name: a profile's (FAKECUDA_GPU), as the driver's
 * cuDeviceGetName gives it; else "fakecuda device N". */
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned length)
{
    if (!device || !name || length == 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    const struct fc_gpu *gpu = fc_gpu_profile();
    int n = gpu ? snprintf(name, length, "%s", gpu->name) : snprintf(name, length, "fakecuda device %u", device->index);
    return n >= 0 && (unsigned)n < length ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
}

/* The CUDA version fakecuda's driver reports (cuDriverGetVersion). */
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *version)
{
    if (!version)
        return NVML_ERROR_INVALID_ARGUMENT;
    *version = FC_DRIVER_VERSION;
    return NVML_SUCCESS;
}

/* No NVLink on a fakecuda device. */
nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device,
                                                                                         unsigned link, int *type)
{
    (void)device, (void)link, (void)type;
    return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device,
                                                                                         unsigned link, void *pci)
{
    (void)device, (void)link, (void)pci;
    return NVML_ERROR_NOT_SUPPORTED;
}

const char *nvmlErrorString(nvmlReturn_t result)
{
    switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    default: return "Unknown Error";
    }
}
