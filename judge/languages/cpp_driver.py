"""The C++ driver of the function style, generated from a problem's PARAMS, PARAM_TYPES and
ANSWER (never from its name): one translation unit that runs INSIDE the sandbox.

    judge_driver.cpp  = PRELUDE (reader, JSON, protocol, main)
                        + the problem's argument tuple and signature
                        + `#define main ...` `#include "solution.cpp"` `#undef main`
                        + GLUE (the call of the student's `solution`)

The driver's own code comes before the student's file, so the student's macros (`#define int
long long` is common) cannot reach it; the glue after it avoids every common macro name. The
student's `main`, if any, is renamed and never called. `solution` is called with the exact
argument types (any passing: by value, const&, &) or, failing that, with proxies converting to
other arithmetic element types (vector<long long>...). Its answer is reported in the kinds
judge/answers.py decodes; any other type as its demangled name and a short repr, so the judge
outside says "expected an int, got 1.5 (double)". It reports, it does not check: everything
it writes is forged until checked outside.

    /box/out/solution --results-fd N --start K [--output]

reads /box/tests.txt (judge/languages/tests_text.py) and speaks judge/harness.py's protocol:
ready, then one result or error event per test from K on. A crash ends the process: the
runner outside reports it.
"""

from __future__ import annotations

from judge.answers import INT, ListType, ValueType
from judge.problems import Problem

SOURCE_NAME = "solution.cpp"
DRIVER_NAME = "judge_driver.cpp"

# Bounds mirrored from judge/harness.py: a list answer with more values or digits than these
# is reported by a repr alone (no type accepts it), and printed output per stream per call.
MAX_LIST_DEPTH = 3
MAX_REPORTED_VALUES = 10_000
MAX_REPORTED_CHARS = 32_000
OUTPUT_LIMIT = 8192
OUTPUT_JSON_BUDGET = 16 * 1024


def cpp_type(value_type: ValueType, std: str = "std::") -> str:
    """The C++ type of a declared value type: int, vector<int>, vector<vector<int>>."""
    if value_type == INT:
        return "int"
    if isinstance(value_type, ListType):
        return f"{std}vector<{cpp_type(value_type.item, std)}>"
    raise TypeError(f"no C++ type for {value_type.name}")


def signature(problem: Problem) -> str:
    """The function a student writes, as the templates and messages show it."""
    params = ", ".join(
        f"{cpp_type(problem.PARAM_TYPES[name], '')} {name}" for name in problem.PARAMS
    )
    return f"{cpp_type(problem.ANSWER, '')} solution({params})"


def _literal(text: str) -> str:
    """A C++ string literal (ASCII; the names come from the problem module)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def driver_source(problem: Problem) -> str:
    types = ", ".join(cpp_type(problem.PARAM_TYPES[name]) for name in problem.PARAMS)
    wanted = signature(problem).split(" ", 1)[1]
    message = (
        f"no function {wanted} to call (any return type converting to "
        f"{cpp_type(problem.ANSWER, '')} and any parameter passing will do): "
        "check its name and its parameter types"
    )
    prelude = PRELUDE
    for key, value in {
        "@MAX_DEPTH@": MAX_LIST_DEPTH,
        "@MAX_VALUES@": MAX_REPORTED_VALUES,
        "@MAX_CHARS@": MAX_REPORTED_CHARS,
        "@OUTPUT_LIMIT@": OUTPUT_LIMIT,
        "@OUTPUT_BUDGET@": OUTPUT_JSON_BUDGET,
        "@ARG_TYPES@": types,
    }.items():
        prelude = prelude.replace(key, str(value))
    return (
        prelude
        + "#define main judge_student_main_\n"
        + f'#include "{SOURCE_NAME}"\n'
        + "#undef main\n"
        + GLUE.replace("@MESSAGE@", _literal(message))
    )


PRELUDE = r"""// The judge's driver (generated): reads tests.txt, calls solution per test, reports.
#include <cxxabi.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

// The driver's own functions need no optimising: -O0 here saves a third of the compile time.
#pragma GCC push_options
#pragma GCC optimize("O0")

namespace judge_rt_ {

constexpr int kMaxDepth = @MAX_DEPTH@;
constexpr long kMaxValues = @MAX_VALUES@;
constexpr long kMaxChars = @MAX_CHARS@;
constexpr std::size_t kOutputLimit = @OUTPUT_LIMIT@;
constexpr std::size_t kOutputBudget = @OUTPUT_BUDGET@;

std::string demangle(const char* name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

// JSON text of arbitrary bytes: invalid UTF-8 becomes U+FFFD, control characters \u00XX.
void json_string(std::string& out, const std::string& s) {
  static const char hex[] = "0123456789abcdef";
  out += '"';
  std::size_t i = 0, n = s.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c < 0x20 || c == 0x7f) {
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    std::size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    bool ok = len > 0 && c <= 0xf4 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k)
      ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok && len == 3) {  // no overlongs, no surrogates
      unsigned char d = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xe0 && d < 0xa0) && !(c == 0xed && d >= 0xa0);
    }
    if (ok && len == 4) {
      unsigned char d = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xf0 && d < 0x90) && !(c == 0xf4 && d >= 0x90);
    }
    if (ok) {
      out.append(s, i, len);
      i += len;
    } else {
      out += "\\ufffd";
      ++i;
    }
  }
  out += '"';
}

std::string json(const std::string& s) {
  std::string out;
  json_string(out, s);
  return out;
}

// ---- answers -------------------------------------------------------------------------

template <class T>
std::string digits(T value) {  // any integer type, __int128 included
  using U = std::make_unsigned_t<T>;
  bool negative = false;
  U magnitude = static_cast<U>(value);
  if constexpr (std::is_signed_v<T>) {
    if (value < 0) {
      negative = true;
      magnitude = static_cast<U>(U(0) - magnitude);
    }
  }
  char buffer[48];
  int at = 48;
  do {
    buffer[--at] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  if (negative) buffer[--at] = '-';
  return std::string(buffer + at, buffer + 48);
}

struct TooLarge {};

struct Budget {
  long values = kMaxValues;
  long chars = kMaxChars;
};

template <class T>
struct IsVector : std::false_type {};
template <class T, class A>
struct IsVector<std::vector<T, A>> : std::true_type {};

template <class T>
struct IsPair : std::false_type {};
template <class A, class B>
struct IsPair<std::pair<A, B>> : std::true_type {};

template <class T>
struct IsTuple : std::false_type {};
template <class... T>
struct IsTuple<std::tuple<T...>> : std::true_type {};

template <class T>
constexpr bool is_char_v = std::is_same_v<T, char> || std::is_same_v<T, signed char> ||
                           std::is_same_v<T, unsigned char> || std::is_same_v<T, wchar_t> ||
                           std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>;

template <class T>
constexpr bool is_int_v = (std::is_integral_v<T> && !std::is_same_v<T, bool> && !is_char_v<T>) ||
                          std::is_same_v<T, __int128> || std::is_same_v<T, unsigned __int128>;

template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, std::string>) return "std::string";  // not basic_string<...>
  return demangle(typeid(T).name());
}

// A short human repr of any value (shown only for an answer of a type no declared type takes).
template <class T>
std::string repr(const T& value, int depth = 0);

template <class Seq>
std::string repr_items(const Seq& items, int depth, const char* open, const char* close) {
  std::string out = open;
  int count = 0;
  for (const auto& item : items) {
    if (count) out += ", ";
    if (++count > 20 || out.size() > 200) {
      out += "...";
      break;
    }
    out += repr(item, depth + 1);
  }
  return out + close;
}

template <class T>
std::string repr(const T& value, int depth) {
  using V = std::decay_t<T>;
  if (depth > 4) return "...";
  if constexpr (std::is_same_v<V, bool>) {
    return value ? "true" : "false";
  } else if constexpr (is_char_v<V>) {
    char quoted[16];
    unsigned long code = static_cast<unsigned long>(value);
    if (code >= 0x20 && code < 0x7f && code != '\'' && code != '\\')
      std::snprintf(quoted, sizeof quoted, "'%c'", static_cast<char>(code));
    else
      std::snprintf(quoted, sizeof quoted, "'\\x%lx'", code);
    return quoted;
  } else if constexpr (is_int_v<V>) {
    return digits(value);
  } else if constexpr (std::is_floating_point_v<V>) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17Lg", static_cast<long double>(value));
    return text;
  } else if constexpr (std::is_same_v<V, std::string>) {
    return "\"" + value.substr(0, 100) + (value.size() > 100 ? "...\"" : "\"");
  } else if constexpr (std::is_same_v<V, const char*> || std::is_same_v<V, char*>) {
    return value ? "\"" + std::string(value).substr(0, 100) + "\"" : "nullptr";
  } else if constexpr (std::is_pointer_v<V> || std::is_null_pointer_v<V>) {
    char text[32];
    std::snprintf(text, sizeof text, "%p", static_cast<const void*>(value));
    return text;
  } else if constexpr (IsPair<V>::value) {
    return "(" + repr(value.first, depth + 1) + ", " + repr(value.second, depth + 1) + ")";
  } else if constexpr (IsTuple<V>::value) {
    std::string out = "(";
    std::apply(
        [&](const auto&... items) {
          int k = 0;
          ((out += (k++ ? ", " : "") + repr(items, depth + 1)), ...);
        },
        value);
    return out + ")";
  } else if constexpr (IsVector<V>::value) {
    return repr_items(value, depth, "[", "]");
  } else {
    return "<a value of type " + type_name<V>() + ">";
  }
}

template <class T>
void encode(std::string& out, const T& value, int depth, Budget& budget) {
  using V = std::decay_t<T>;
  if (--budget.values < 0) throw TooLarge{};
  if constexpr (is_int_v<V>) {
    std::string text = digits(value);
    budget.chars -= static_cast<long>(text.size());
    if (budget.chars < 0) throw TooLarge{};
    out += "{\"type\":\"int\",\"int\":\"" + text + "\"}";
  } else if constexpr (IsVector<V>::value) {
    if (depth >= kMaxDepth) {
      out += "{\"type\":" + json(type_name<V>()) + ",\"repr\":\"<a list nested too deep>\"}";
      return;
    }
    out += "{\"type\":\"list\",\"items\":[";
    bool first = true;
    for (const auto& item : value) {
      if (!first) out += ',';
      first = false;
      encode(out, static_cast<const typename V::value_type&>(item), depth + 1, budget);
    }
    out += "]}";
  } else {
    out += "{\"type\":" + json(type_name<V>().substr(0, 100)) +
           ",\"repr\":" + json(repr(value).substr(0, 200)) + "}";
  }
}

template <class T>
std::string answer_json(const T& value) {
  std::string out;
  Budget budget;
  try {
    encode(out, value, 0, budget);
  } catch (const TooLarge&) {
    return "{\"type\":\"list\",\"repr\":\"<a list too large to report>\"}";
  }
  return out;
}

// ---- calling solution ------------------------------------------------------------------

// Converts an argument to another arithmetic element type (vector<long long> for
// vector<int>...), for a solution declared with one; only chosen when the exact types fail.
template <class From, class To>
struct Converts : std::false_type {};
template <class To>
struct Converts<int, To>
    : std::bool_constant<std::is_arithmetic_v<To> && !std::is_same_v<To, bool>> {};
template <class From, class To, class A>
struct Converts<std::vector<From>, std::vector<To, A>> : Converts<From, To> {};

template <class To, class From>
To convert(const From& value) {
  if constexpr (IsVector<To>::value) {
    To out;
    out.reserve(value.size());
    for (const auto& item : value) out.push_back(convert<typename To::value_type>(item));
    return out;
  } else {
    return static_cast<To>(value);
  }
}

template <class P>
struct Loose {
  const P& value;
  template <class T, class = std::enable_if_t<Converts<P, T>::value>>
  operator T() const {
    return convert<T>(value);
  }
};

template <class F, class Args>
struct Callable;
template <class F, class... P>
struct Callable<F, std::tuple<P...>> {
  static constexpr bool exact = std::is_invocable_v<F, P&...>;
  static constexpr bool loose = std::is_invocable_v<F, Loose<P>...>;
  static constexpr bool value = exact || loose;
};

template <class F, class... P>
std::string call_with(F call, std::tuple<P...>& args) {
  return std::apply(
      [&](P&... items) -> std::string {
        if constexpr (!Callable<F, std::tuple<P...>>::value) {
          return "";  // the static_assert after the student's file says why
        } else if constexpr (Callable<F, std::tuple<P...>>::exact) {
          using R = decltype(call(items...));
          if constexpr (std::is_void_v<R>) {
            call(items...);
            return "{\"type\":\"void\",\"repr\":\"nothing\"}";
          } else {
            auto&& answer = call(items...);
            return answer_json(answer);
          }
        } else {
          using R = decltype(call(Loose<P>{items}...));
          if constexpr (std::is_void_v<R>) {
            call(Loose<P>{items}...);
            return "{\"type\":\"void\",\"repr\":\"nothing\"}";
          } else {
            auto&& answer = call(Loose<P>{items}...);
            return answer_json(answer);
          }
        }
      },
      args);
}

// ---- reading the tests -----------------------------------------------------------------

struct Reader {
  std::string data;
  std::size_t at = 0;

  long long number() {
    while (at < data.size() && (data[at] == ' ' || data[at] == '\n' || data[at] == '\r' ||
                                data[at] == '\t'))
      ++at;
    bool negative = at < data.size() && data[at] == '-';
    if (negative) ++at;
    if (at >= data.size() || data[at] < '0' || data[at] > '9') {
      std::fputs("judge driver: malformed tests.txt\n", stderr);
      std::_Exit(70);
    }
    long long value = 0;
    while (at < data.size() && data[at] >= '0' && data[at] <= '9')
      value = value * 10 + (data[at++] - '0');
    return negative ? -value : value;
  }

  void read(int& value) { value = static_cast<int>(number()); }

  template <class T>
  void read(std::vector<T>& items) {
    long long n = number();
    items.resize(static_cast<std::size_t>(n));
    for (auto& item : items) read(item);
  }

  template <class... P>
  void read(std::tuple<P...>& args) {
    std::apply([&](P&... items) { (read(items), ...); }, args);
  }
};

bool read_file(const char* path, std::string& out) {
  FILE* f = std::fopen(path, "rb");
  if (!f) return false;
  char buffer[1 << 16];
  std::size_t got;
  while ((got = std::fread(buffer, 1, sizeof buffer, f)) > 0) out.append(buffer, got);
  std::fclose(f);
  return true;
}

// ---- reporting -------------------------------------------------------------------------

int results_fd = -1;

void emit(const std::string& line) {
  std::string text = line + "\n";
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(results_fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::_Exit(71);
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

double seconds(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

std::string number_text(double value) {
  char text[48];
  std::snprintf(text, sizeof text, "%.9f", value < 0 ? 0.0 : value);
  return text;
}

// What a call prints on one fd: a pipe read by a thread that keeps the first kOutputLimit
// bytes and passes everything on to the real fd, so the sandbox's output limit still ends a
// flood (OLE), as without capturing. The thread stops when told (a child the call forked may
// hold the pipe open forever); without a thread nothing is captured (a full pipe would block).
struct Capture {
  int fd = -1;
  int saved = -1;
  int read_end = -1;
  int wake[2] = {-1, -1};
  pthread_t thread{};
  bool running = false;
  std::string kept;
  bool cut = false;

  // One chunk from the pipe: kept (up to the limit) and passed on. False at its end.
  bool take(char* buffer, std::size_t size) {
    ssize_t n = ::read(read_end, buffer, size);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) return false;
    std::size_t room = kOutputLimit - kept.size();
    if (static_cast<std::size_t>(n) > room) cut = true;
    kept.append(buffer, std::min(room, static_cast<std::size_t>(n)));
    const char* p = buffer;
    while (n > 0) {
      ssize_t w = ::write(saved, p, static_cast<std::size_t>(n));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      p += w;
      n -= w;
    }
    return true;
  }

  static void* pump(void* self_) {
    auto* self = static_cast<Capture*>(self_);
    char buffer[1 << 14];
    for (;;) {
      pollfd fds[2] = {{self->read_end, POLLIN, 0}, {self->wake[0], POLLIN, 0}};
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (fds[1].revents) {  // told to stop: what is in the pipe now, then no more
        fcntl(self->read_end, F_SETFL, O_NONBLOCK);
        while (self->take(buffer, sizeof buffer)) {
        }
        break;
      }
      if (fds[0].revents && !self->take(buffer, sizeof buffer)) break;
    }
    return nullptr;
  }

  void start(int which) {
    fd = which;
    kept.clear();
    cut = false;
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return;
    if (pipe2(wake, O_CLOEXEC) != 0) {
      ::close(ends[0]);
      ::close(ends[1]);
      wake[0] = wake[1] = -1;
      return;
    }
    read_end = ends[0];
    saved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    running = saved >= 0 && pthread_create(&thread, nullptr, &Capture::pump, this) == 0;
    if (!running || dup2(ends[1], fd) < 0) {
      ::close(ends[1]);
      stop();
      return;
    }
    ::close(ends[1]);
  }

  void stop() {
    if (saved >= 0) dup2(saved, fd);
    if (running) {
      (void)!::write(wake[1], "x", 1);
      pthread_join(thread, nullptr);
    }
    running = false;
    for (int* p : {&read_end, &saved, &wake[0], &wake[1]}) {
      if (*p >= 0) ::close(*p);
      *p = -1;
    }
  }
};

// The captured text as a JSON string within kOutputBudget characters; `cut` when shortened.
std::string fitted(const std::string& text, bool& cut) {
  std::string out = json(text);
  std::size_t keep = text.size();
  while (out.size() > kOutputBudget && keep > 0) {
    keep = keep * kOutputBudget / out.size();
    keep = keep > 0 ? keep - 1 : 0;
    out = json(text.substr(0, keep));
    cut = true;
  }
  return out;
}

std::string exception_type() {
  std::type_info* type = abi::__cxa_current_exception_type();
  return type ? demangle(type->name()) : std::string("unknown exception");
}

using Args = std::tuple<@ARG_TYPES@>;
std::string call_solution(Args& args);  // after the student's file: it calls solution

int run(int argc, char** argv) {
  int start = 0;
  bool capture = false;
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    if (arg == "--results-fd" && k + 1 < argc) results_fd = std::atoi(argv[++k]);
    else if (arg == "--start" && k + 1 < argc) start = std::atoi(argv[++k]);
    else if (arg == "--output") capture = true;
  }
  if (results_fd < 0) return 64;
  std::string text;
  if (!read_file("tests.txt", text)) {
    std::fputs("judge driver: cannot read tests.txt\n", stderr);
    return 66;
  }
  Reader reader{std::move(text)};
  long long count = reader.number();
  std::vector<Args> tests(static_cast<std::size_t>(count));
  for (auto& test : tests) reader.read(test);
  emit("{\"event\":\"ready\"}");
  for (long long index = start; index < count; ++index) {
    Capture out, err;
    if (capture) {
      std::fflush(stdout);
      std::fflush(stderr);
      std::cout.flush();
      out.start(1);
      err.start(2);
    }
    std::string report;
    double cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID), wall0 = seconds(CLOCK_MONOTONIC);
    try {
      std::string answer = call_solution(tests[static_cast<std::size_t>(index)]);
      report = "{\"event\":\"result\",\"i\":" + std::to_string(index) + ",\"answer\":" + answer;
    } catch (const std::exception& e) {
      const char* what = e.what();
      report = "{\"event\":\"error\",\"i\":" + std::to_string(index) +
               ",\"error\":" + json(demangle(typeid(e).name()).substr(0, 200)) +
               ",\"message\":" + json(std::string(what ? what : "").substr(0, 1000)) +
               ",\"traceback\":\"\"";
    } catch (...) {
      std::string message;
      try {
        throw;
      } catch (const char* s) {
        message = s ? s : "";
      } catch (const std::string& s) {
        message = s;
      } catch (int v) {
        message = std::to_string(v);
      } catch (long long v) {
        message = std::to_string(v);
      } catch (...) {
      }
      report = "{\"event\":\"error\",\"i\":" + std::to_string(index) +
               ",\"error\":" + json(exception_type().substr(0, 200)) +
               ",\"message\":" + json(message.substr(0, 1000)) + ",\"traceback\":\"\"";
    }
    double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0, wall = seconds(CLOCK_MONOTONIC) - wall0;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    report += ",\"cpu\":" + number_text(cpu) + ",\"wall\":" + number_text(wall) +
              ",\"rss_kb\":" + std::to_string(usage.ru_maxrss < 0 ? 0 : usage.ru_maxrss);
    if (capture) {
      std::fflush(stdout);
      std::fflush(stderr);
      std::cout.flush();
      std::cerr.flush();
      out.stop();
      err.stop();
      bool cut = out.cut || err.cut;
      std::string stdout_json = fitted(out.kept, cut), stderr_json = fitted(err.kept, cut);
      report += ",\"stdout\":" + stdout_json + ",\"stderr\":" + stderr_json +
                ",\"output_cut\":" + (cut ? "true" : "false");
    }
    emit(report + "}");
  }
  std::fflush(stdout);
  std::cout.flush();
  return 0;
}
}  // namespace judge_rt_

int main(int argc, char** argv) { return judge_rt_::run(argc, argv); }
#pragma GCC pop_options
"""


# After the student's file: no name a common macro could take (int, ll, F, S, pb, all, ...).
GLUE = r"""
namespace judge_glue_ {
struct Call {
  template <class... JudgeA_>
  auto operator()(JudgeA_&&... judge_a) const
      -> decltype(solution(static_cast<JudgeA_&&>(judge_a)...)) {
    return solution(static_cast<JudgeA_&&>(judge_a)...);
  }
};
static_assert(judge_rt_::Callable<Call, judge_rt_::Args>::value, @MESSAGE@);
}  // namespace judge_glue_

namespace judge_rt_ {
std::string call_solution(Args& judge_args) { return call_with(judge_glue_::Call{}, judge_args); }
}  // namespace judge_rt_
"""
