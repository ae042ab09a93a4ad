/* The part of ROCm SMI's C interface the rsmi backend calls (dlopen'ed, so
 * its header is not needed at build time). Shared with the fake ROCm SMI of
 * the tests. */
#ifndef GANTRY_NODEAGENT_DETECT_RSMI_ABI_H
#define GANTRY_NODEAGENT_DETECT_RSMI_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int rsmi_status_t;

enum { kRsmiSuccess = 0, kRsmiIoLinkTypePcie = 1, kRsmiIoLinkTypeXgmi = 2, kRsmiStatusNotFound = 10 };

/* cu_occupancy when the driver gives no counter (ROCm 6.1.1 on). */
#define GANTRY_RSMI_CU_OCCUPANCY_INVALID 0xFFFFFFFFu

/* Per-process usage, read by the step launcher for GPU accounting. The
 * library has grown this structure over releases; the spare room at the end
 * keeps a newer one from writing past ours. */
typedef struct {
  uint32_t process_id;
  uint32_t pasid;
  uint64_t vram_usage;   /* bytes */
  uint64_t sdma_usage;
  uint32_t cu_occupancy; /* percent of the CUs of the GPUs read */
  uint32_t spare[15];
} rsmi_process_info_t;

typedef rsmi_status_t (*rsmi_init_fn)(uint64_t);
typedef rsmi_status_t (*rsmi_shut_down_fn)(void);
typedef rsmi_status_t (*rsmi_num_monitor_devices_fn)(uint32_t*);
typedef rsmi_status_t (*rsmi_dev_pci_id_get_fn)(uint32_t, uint64_t*);
typedef rsmi_status_t (*rsmi_dev_name_get_fn)(uint32_t, char*, size_t);
typedef rsmi_status_t (*rsmi_dev_id_get_fn)(uint32_t, uint16_t*);
typedef rsmi_status_t (*rsmi_dev_unique_id_get_fn)(uint32_t, uint64_t*);
typedef rsmi_status_t (*rsmi_dev_drm_render_minor_get_fn)(uint32_t, uint32_t*);
/* The last argument is RSMI_IO_LINK_TYPE, an int-sized enum. */
typedef rsmi_status_t (*rsmi_topo_get_link_type_fn)(uint32_t, uint32_t, uint64_t*, int*);
typedef rsmi_status_t (*rsmi_compute_process_info_by_pid_get_fn)(uint32_t, rsmi_process_info_t*);

#ifdef __cplusplus
}
#endif

#endif
