// Four cases that each hang (the self-test of scripts/gtest_batch.py runs it): each one leaves its
// pid in HANG_DIR and notes there when it sees another hanging case alive beside it.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace {
void hang(const char* name) {
  const std::filesystem::path dir = std::getenv("HANG_DIR");
  std::ofstream(dir / (std::string(name) + ".pid")) << getpid();
  for (;;) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".pid" || entry.path().stem() == name) continue;
      int pid = 0;
      std::ifstream(entry.path()) >> pid;
      if (pid > 0 && kill(pid, 0) == 0) std::ofstream(dir / "overlap") << name;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}
}  // namespace

TEST(Hang, A) { hang("A"); }
TEST(Hang, B) { hang("B"); }
TEST(Hang, C) { hang("C"); }
TEST(Hang, D) { hang("D"); }
TEST(Hang, PassesAtTheEnd) { SUCCEED(); }
