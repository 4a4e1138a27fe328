// Physical CPU cores, one definition for the engine's thread count and the
// benchmark's record of the machine: distinct (package, core) pairs among the
// CPUs this process may run on, read from sysfs topology and the affinity
// mask, so SMT siblings count once and a container's CPU set is respected.
#pragma once

namespace tb {

/// The count from sysfs topology, or 0 where the kernel exposes none.
[[nodiscard]] int physicalCoresFromTopology();

/// physicalCoresFromTopology(), else the logical CPU count; at least 1.
[[nodiscard]] int physicalCoreCount();

}  // namespace tb
