// The suite's GoogleTest main: GoogleTest's own, plus the grader's verdict channel.
//
// A test process runs the student's code, so what it prints and how it exits are the student's
// to forge: a region could print "[       OK ]" lines, or leave with status 0 before a test fails.
// When the grader starts a test binary it opens a pipe and names its write end in
// CUDALAB_VERDICT_FD; this listener, built from the suite's pristine sources, writes one line per
// case to it (START <case>, END <case> passed|failed|skipped) and the grader scores from these
// lines alone (scripts/gtest_batch.py). A case with no END line failed, whatever was printed.
// Student code cannot write to the pipe: it may call no output function at all (the allow-list
// on its compiled object, scripts/cudalab/labgrade/symbols.py). Without the variable nothing changes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace {

class VerdictListener : public ::testing::EmptyTestEventListener {
 public:
  explicit VerdictListener(int fd) : fd_(fd) {}

  void OnTestStart(const ::testing::TestInfo& info) override { send("START", info, nullptr); }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const ::testing::TestResult* result = info.result();
    send("END", info, result->Skipped() ? "skipped" : result->Passed() ? "passed" : "failed");
  }

 private:
  void send(const char* what, const ::testing::TestInfo& info, const char* status) {
    std::string line = std::string(what) + " " + info.test_suite_name() + "." + info.name();
    if (status) line += std::string(" ") + status;
    line += "\n";
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {  // one line at a time: a pipe write of < PIPE_BUF bytes is never split
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the grader is gone: nothing to report to
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }

  int fd_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (const char* fd_text = std::getenv("CUDALAB_VERDICT_FD")) {
    char* end = nullptr;
    const long fd = std::strtol(fd_text, &end, 10);
    if (end != fd_text && *end == '\0' && fd > 2 && fd < 1024) {
      ::testing::UnitTest::GetInstance()->listeners().Append(new VerdictListener(static_cast<int>(fd)));
    }
  }
  return RUN_ALL_TESTS();
}
