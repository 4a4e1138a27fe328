// /proc/cpuinfo of two kinds of machine: an x86 one with SMT (physical cores
// are half the logical CPUs) and an arm64 one without "model name".
#include <gtest/gtest.h>

#include "tb/bench/host_cpu.hpp"

namespace tb::bench {
namespace {

std::string x86Processor(int processor, int core) {
  return "processor\t: " + std::to_string(processor) +
         "\nmodel name\t: Intel(R) Xeon(R) Platinum 8468\nphysical id\t: 0\ncore id\t\t: " +
         std::to_string(core) + "\n\n";
}

TEST(HostCpu, SmtSiblingsCountOnce) {
  std::string text;
  for (int processor = 0; processor < 8; ++processor) {
    text += x86Processor(processor, processor % 4);
  }
  const HostCpu cpu = parseCpuInfo(text);
  EXPECT_EQ(cpu.model, "Intel(R) Xeon(R) Platinum 8468");
  EXPECT_EQ(cpu.physicalCores, 4);
}

TEST(HostCpu, WithoutCoreIdsLogicalCpusAreCounted) {
  const std::string text =
      "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n\n"
      "processor\t: 1\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n\n";
  const HostCpu cpu = parseCpuInfo(text);
  EXPECT_EQ(cpu.physicalCores, 2);
  EXPECT_EQ(cpu.model, "ARM implementer 0x41");
}

TEST(HostCpu, ThisMachineHasAModelAndCores) {
  const HostCpu cpu = detectHostCpu();
  EXPECT_FALSE(cpu.model.empty());
  EXPECT_GE(cpu.physicalCores, 1);
}

}  // namespace
}  // namespace tb::bench
