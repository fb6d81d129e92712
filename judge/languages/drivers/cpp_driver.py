"""The C++ driver of the function style, generated from a problem's PARAMS, PARAM_TYPES and
ANSWER (never from its name); it runs INSIDE the sandbox, two units linked into one binary:

    judge_driver.cpp   HEADER (the argument tuple, reading it, calling, encoding the answer)
                       + `#define main ...` `#include "solution.cpp"` `#undef main`
                       + GLUE (the call of the student's `solution`)
    judge_runtime.cpp  RUNTIME, the same for every problem: main, the protocol, timing, output

The student's unit sees only headers that declare no C or POSIX name, and the driver's code
comes before the student's file, so the student's macros (`#define int long long` is common)
cannot reach it; the glue after it avoids every common macro name. The student's `main`, if
any, is renamed and never called. `solution` is called with the exact argument types (any
passing: by value, const&, &) or, failing that, with proxies converting to other arithmetic
element types (vector<long long>...). Its answer is reported in the kinds judge/answers.py
decodes; any other type as its demangled name and a short repr, so the judge outside says
"expected an int, got 1.5 (double)". It reports, it does not check: everything it writes is
forged until checked outside.

    /box/bin/solution --results-fd N --tests-fd T --start K [--output]

speaks judge/languages/drivers/harness.py's protocol: ready, then per test read on fd T (one line of
judge/languages/tests_text.py, written by the judge once it has read the report before) one
result or error event, numbered from K, until fd T ends. A crash ends the process: the
runner outside reports it.
"""

from __future__ import annotations

from judge.answers import BOOL, INT, LONG, MAX_STR_CHARS, STR, ListType, ValueType, scalar_of
from judge.languages.drivers.harness import MAX_REPORTED_BYTES, MAX_REPORTED_VALUES
from judge.problems import ProblemSpec

SOURCE_NAME = "solution.cpp"
DRIVER_NAME = "judge_driver.cpp"
RUNTIME_NAME = "judge_runtime.cpp"

# Bounds mirrored from judge/languages/drivers/harness.py (the report's bounds taken from it):
# a list answer with more values than MAX_REPORTED_VALUES, or taking more than
# MAX_REPORTED_BYTES on the line (each value charged as the harness charges it), is reported by
# a repr alone (no type accepts it); and printed output per stream per call.
MAX_LIST_DEPTH = 3
OUTPUT_LIMIT = 8192
OUTPUT_JSON_BUDGET = 16 * 1024


# The C++ type of each scalar type (`std` is the prefix of a standard name, "" in messages).
_SCALARS = {INT: "int", LONG: "long long", BOOL: "bool", STR: "{std}string"}


def cpp_type(value_type: ValueType, std: str = "std::") -> str:
    """The C++ type of a declared value type: int, long long, bool, std::string,
    vector<int>, vector<vector<std::string>>."""
    if value_type in _SCALARS:
        return _SCALARS[value_type].format(std=std)
    if isinstance(value_type, ListType):
        return f"{std}vector<{cpp_type(value_type.item, std)}>"
    raise TypeError(f"no C++ type for {value_type.name}")


def _uses_str(problem: ProblemSpec) -> bool:
    declared = [*problem.PARAM_TYPES.values(), problem.ANSWER]
    return any(scalar_of(t)[0] == STR for t in declared)


def signature(problem: ProblemSpec) -> str:
    """The function a student writes, as the templates and messages show it."""
    params = ", ".join(
        f"{cpp_type(problem.PARAM_TYPES[name], '')} {name}" for name in problem.PARAMS
    )
    return f"{cpp_type(problem.ANSWER, '')} solution({params})"


def _literal(text: str) -> str:
    """A C++ string literal (ASCII; the names come from the problem module)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def driver_source(problem: ProblemSpec) -> str:
    """The unit compiled with the student's file: the problem's argument types, the call."""
    types = ", ".join(cpp_type(problem.PARAM_TYPES[name]) for name in problem.PARAMS)
    wanted = signature(problem).split(" ", 1)[1]
    message = (
        f"no function {wanted} to call (any return type converting to "
        f"{cpp_type(problem.ANSWER, '')} and any parameter passing will do): "
        "check its name and its parameter types"
    )
    # <string> declares the C library's <stdlib.h> names (rand, abs): included only where a
    # str is declared, and then the student's own file includes it too.
    strings = STRING_READER if _uses_str(problem) else ""
    header = _fill(HEADER, {"@ARG_TYPES@": types, "@STRING_READER@": strings})
    return (
        header
        + "#define main judge_student_main_\n"
        + f'#include "{SOURCE_NAME}"\n'
        + "#undef main\n"
        + GLUE.replace("@MESSAGE@", _literal(message))
    )


def runtime_source() -> str:
    """The rest of the driver, the same for every problem: main, the protocol, timing, output."""
    return _fill(RUNTIME, {})


def _fill(text: str, extra: dict[str, str]) -> str:
    for key, value in {
        "@MAX_DEPTH@": str(MAX_LIST_DEPTH),
        "@MAX_VALUES@": str(MAX_REPORTED_VALUES),
        "@MAX_BYTES@": str(MAX_REPORTED_BYTES),
        "@MAX_STR@": str(MAX_STR_CHARS),
        "@OUTPUT_LIMIT@": str(OUTPUT_LIMIT),
        "@OUTPUT_BUDGET@": str(OUTPUT_JSON_BUDGET),
        **extra,
    }.items():
        text = text.replace(key, value)
    return text


HEADER = r"""// The judge's driver (generated), the part compiled with solution.cpp: the tests'
// types, the call of solution and the encoding of its answer. Only headers that declare no C
// or POSIX name are included here (a student's global `time` or `index` compiles as it would
// alone); the rest of the driver is judge_runtime.cpp.
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

// The driver's own functions need no optimising: -O0 here saves a third of the compile time.
#pragma GCC push_options
#pragma GCC optimize("O0")

namespace judge_rt_ {

using Text = std::vector<char>;

// In judge_runtime.cpp.
void append(Text& out, const char* text);
void append_json(Text& out, const char* data, std::size_t size);  // as a JSON string
void append_type(Text& out, const std::type_info& type);  // its name as a JSON string
void append_float(Text& out, long double value);
long long next_number();  // the next token of the current test's line
const char* next_text(long long& size);  // the next str of the line: its bytes and size
// A str's characters when it is valid text: UTF-8 of at most kMaxStr characters, none of
// them a control character; else -1.
long text_chars(const char* data, std::size_t size);

constexpr int kMaxDepth = @MAX_DEPTH@;
constexpr long kMaxValues = @MAX_VALUES@;
constexpr long kMaxBytes = @MAX_BYTES@;
constexpr long kMaxStr = @MAX_STR@;

template <class T>
void digits(Text& out, T value) {  // any integer type, __int128 included
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
  out.insert(out.end(), buffer + at, buffer + 48);
}

struct TooLarge {};

struct Budget {
  long values = kMaxValues;
  long bytes = kMaxBytes;
};

inline void charge(Budget& budget, long size) {
  budget.bytes -= size;
  if (budget.bytes < 0) throw TooLarge{};
}

// Charges what `out` holds from `from` on as judge/languages/drivers/harness.py charges it:
// compact JSON with every character beyond ASCII as its \u escape. This driver writes UTF-8,
// so a character of 2 or 3 bytes is charged 6 and one of 4 bytes (two UTF-16 units) 12: the
// same figure in every language, and never less than the bytes written.
inline void charge_from(Budget& budget, const Text& out, std::size_t from) {
  long size = 0;
  for (std::size_t k = from; k < out.size(); ++k) {
    unsigned char c = static_cast<unsigned char>(out[k]);
    size += c < 0x80 ? 1 : c >= 0xf0 ? 12 : c >= 0xc0 ? 6 : 0;
  }
  charge(budget, size);
}

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

template <class T, class = void>
struct HasCStr : std::false_type {};
template <class T>
struct HasCStr<T, std::void_t<decltype(std::declval<const T&>().c_str())>> : std::true_type {};

// A short human repr of any value (shown only for an answer of a type no declared type takes).
template <class T>
void repr(Text& out, const T& value, int depth = 0);

template <class Seq>
void repr_items(Text& out, const Seq& items, int depth) {
  append(out, "[");
  int count = 0;
  for (const auto& item : items) {
    if (count) append(out, ", ");
    if (++count > 20 || out.size() > 200) {
      append(out, "...");
      break;
    }
    repr(out, item, depth + 1);
  }
  append(out, "]");
}

template <class T>
void repr(Text& out, const T& value, int depth) {
  using V = std::decay_t<T>;
  if (depth > 4 || out.size() > 400) {
    append(out, "...");
  } else if constexpr (std::is_same_v<V, bool>) {
    append(out, value ? "true" : "false");
  } else if constexpr (is_char_v<V>) {
    unsigned long code = static_cast<unsigned long>(value);
    append(out, "'");
    if (code >= 0x20 && code < 0x7f && code != '\'' && code != '\\') {
      out.push_back(static_cast<char>(code));
    } else {
      append(out, "\\");
      digits(out, code);
    }
    append(out, "'");
  } else if constexpr (is_int_v<V>) {
    digits(out, value);
  } else if constexpr (std::is_floating_point_v<V>) {
    append_float(out, value);
  } else if constexpr (HasCStr<V>::value) {
    const char* text = value.c_str();
    std::size_t size = 0;
    while (text[size] && size < 100) ++size;
    append(out, "\"");
    out.insert(out.end(), text, text + size);
    append(out, text[size] ? "...\"" : "\"");
  } else if constexpr (std::is_pointer_v<V> || std::is_null_pointer_v<V>) {
    append(out, value ? "<a pointer>" : "nullptr");
  } else if constexpr (IsPair<V>::value) {
    append(out, "(");
    repr(out, value.first, depth + 1);
    append(out, ", ");
    repr(out, value.second, depth + 1);
    append(out, ")");
  } else if constexpr (IsTuple<V>::value) {
    append(out, "(");
    std::apply(
        [&](const auto&... items) {
          int k = 0;
          ((append(out, k++ ? ", " : ""), repr(out, items, depth + 1)), ...);
        },
        value);
    append(out, ")");
  } else if constexpr (IsVector<V>::value) {
    repr_items(out, value, depth);
  } else {
    append(out, "<a value>");
  }
}

template <class T, class = void>
struct IsText : std::false_type {};  // std::string, named without including <string>
template <class T>
struct IsText<T, std::enable_if_t<std::is_same_v<decltype(std::declval<const T&>().c_str()),
                                                 const char*>>> : HasCStr<T> {};

template <class V>
void encode_text(Text& out, const V& value) {
  const char* data = value.c_str();
  std::size_t size = value.size();
  long chars = text_chars(data, size);
  if (chars < 0) {
    append(out, "{\"type\":\"str\",\"repr\":\"<a str of more than @MAX_STR@ characters, "
                "not UTF-8, or holding a control character>\"}");
    return;
  }
  append(out, "{\"type\":\"str\",\"str\":");
  append_json(out, data, size);
  append(out, "}");
}

template <class T>
void encode(Text& out, const T& value, int depth, Budget& budget) {
  using V = std::decay_t<T>;
  if (--budget.values < 0) throw TooLarge{};
  std::size_t start = out.size();
  if constexpr (IsVector<V>::value) {
    if (depth < kMaxDepth) {
      // Its wrapping, {"type":"list","items":[]}, and a comma between items; the items
      // charge themselves.
      charge(budget, 26 + (value.empty() ? 0 : static_cast<long>(value.size()) - 1));
      append(out, "{\"type\":\"list\",\"items\":[");
      bool first = true;
      for (const auto& item : value) {
        if (!first) out.push_back(',');
        first = false;
        encode(out, static_cast<const typename V::value_type&>(item), depth + 1, budget);
      }
      append(out, "]}");
      return;
    }
    append(out, "{\"type\":");
    append_type(out, typeid(V));
    append(out, ",\"repr\":\"<a list nested too deep>\"}");
  } else if constexpr (std::is_same_v<V, bool>) {
    append(out, value ? "{\"type\":\"bool\",\"bool\":true}" : "{\"type\":\"bool\",\"bool\":false}");
  } else if constexpr (IsText<V>::value) {
    encode_text(out, value);
  } else if constexpr (is_int_v<V>) {
    append(out, "{\"type\":\"int\",\"int\":\"");
    digits(out, value);
    append(out, "\"}");
  } else {
    Text text;
    repr(text, value);
    append(out, "{\"type\":");
    append_type(out, typeid(V));
    append(out, ",\"repr\":");
    append_json(out, text.data(), text.size() < 200 ? text.size() : 200);
    append(out, "}");
  }
  charge_from(budget, out, start);
}

template <class T>
void answer_json(Text& out, const T& value) {
  Budget budget;
  try {
    encode(out, value, 0, budget);
  } catch (const TooLarge&) {
    out.clear();
    append(out, "{\"type\":\"list\",\"repr\":\"<a list too large to report>\"}");
  }
}

// ---- calling solution ------------------------------------------------------------------

// Converts an argument to another arithmetic element type (vector<long long> for
// vector<int>...), for a solution declared with one; only chosen when the exact types fail.
template <class From, class To>
struct Converts : std::false_type {};
template <class To>
struct Converts<int, To>
    : std::bool_constant<std::is_arithmetic_v<To> && !std::is_same_v<To, bool>> {};
template <class To>  // a long long only to types as wide (no silent narrowing)
struct Converts<long long, To>
    : std::bool_constant<std::is_arithmetic_v<To> && !std::is_same_v<To, bool> &&
                         sizeof(To) >= sizeof(long long)> {};
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
void call_with(F call, std::tuple<P...>& args, Text& out) {
  std::apply(
      [&](P&... items) {
        if constexpr (!Callable<F, std::tuple<P...>>::value) {
          return;  // the static_assert after the student's file says why
        } else if constexpr (Callable<F, std::tuple<P...>>::exact) {
          using R = decltype(call(items...));
          if constexpr (std::is_void_v<R>) {
            call(items...);
            append(out, "{\"type\":\"void\",\"repr\":\"nothing\"}");
          } else {
            auto&& answer = call(items...);
            answer_json(out, answer);
          }
        } else {
          using R = decltype(call(Loose<P>{items}...));
          if constexpr (std::is_void_v<R>) {
            call(Loose<P>{items}...);
            append(out, "{\"type\":\"void\",\"repr\":\"nothing\"}");
          } else {
            auto&& answer = call(Loose<P>{items}...);
            answer_json(out, answer);
          }
        }
      },
      args);
}

// ---- reading the tests ---------------------------------------------------------------

[[noreturn]] void refuse_test_line();  // in judge_runtime.cpp: ends the process

inline void read(int& value) {
  long long number = next_number();
  if (number < -2147483648LL || number > 2147483647LL) refuse_test_line();
  value = static_cast<int>(number);
}

inline void read(long long& value) { value = next_number(); }

inline void read(bool& value) {
  long long number = next_number();
  if (number != 0 && number != 1) refuse_test_line();
  value = number == 1;
}
@STRING_READER@
inline void read(std::vector<bool>& items) {  // its items are proxies, not bool&
  long long size = next_number();
  if (size < 0) refuse_test_line();
  items.assign(static_cast<std::size_t>(size), false);
  for (std::size_t k = 0; k < items.size(); ++k) {
    bool item = false;
    read(item);
    items[k] = item;
  }
}

template <class T>
void read(std::vector<T>& items) {
  long long size = next_number();
  if (size < 0) refuse_test_line();
  items.resize(static_cast<std::size_t>(size));
  for (auto& item : items) read(item);
}

template <class... P>
void read(std::tuple<P...>& args) {
  std::apply([&](P&... items) { (read(items), ...); }, args);
}

using Args = std::tuple<@ARG_TYPES@>;

}  // namespace judge_rt_
#pragma GCC pop_options
"""


STRING_READER = r"""
}  // namespace judge_rt_
#pragma GCC pop_options
#include <string>
#pragma GCC push_options
#pragma GCC optimize("O0")
namespace judge_rt_ {
inline void read(std::string& value) {
  long long size = 0;
  const char* data = next_text(size);
  value.assign(data, static_cast<std::size_t>(size));
}
"""


RUNTIME = r"""// The judge's driver (generated): main, the protocol, timing and printed output; the
// part compiled with solution.cpp calls solution. Reads one test at a time on the tests fd,
// reports on the results fd.
#include <cxxabi.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

// Nothing here needs optimising (the calls of solution are in the other unit): -O0 compiles
// this unit in a fraction of the time.
#pragma GCC optimize("O0")

namespace judge_rt_ {

using Text = std::vector<char>;
void load_test();  // in the student's unit: reads the current test's arguments
void call_test(Text& answer);  // calls solution on them, encodes its answer

constexpr std::size_t kOutputLimit = @OUTPUT_LIMIT@;
constexpr std::size_t kOutputBudget = @OUTPUT_BUDGET@;
constexpr long kMaxStr = @MAX_STR@;

std::string demangle(const char* name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

// JSON text of arbitrary bytes: invalid UTF-8 becomes U+FFFD, control characters \u00XX.
void json_string(std::string& out, const char* s, std::size_t n) {
  static const char hex[] = "0123456789abcdef";
  out += '"';
  std::size_t i = 0;
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
      out.append(s + i, len);
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
  json_string(out, s.data(), s.size());
  return out;
}

void append(Text& out, const char* text) { out.insert(out.end(), text, text + std::strlen(text)); }

void append_json(Text& out, const char* data, std::size_t size) {
  std::string text;
  json_string(text, data, size);
  out.insert(out.end(), text.begin(), text.end());
}

void append_type(Text& out, const std::type_info& type) {
  std::string name = type == typeid(std::string) ? "std::string" : demangle(type.name());
  append_json(out, name.data(), name.size() < 100 ? name.size() : 100);
}

void append_float(Text& out, long double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17Lg", value);
  append(out, text);
}

// read and write by their system calls: a student's global variable named `read` or `write`
// (C++ does not mangle global variables) takes the libc symbol's place in a static link.
ssize_t sys_read(int fd, void* buffer, std::size_t size) {
  return syscall(SYS_read, fd, buffer, size);
}
ssize_t sys_write(int fd, const void* buffer, std::size_t size) {
  return syscall(SYS_write, fd, buffer, size);
}

[[noreturn]] void refuse_test_line() {
  std::fputs("judge driver: malformed test line\n", stderr);
  std::_Exit(70);
}

// The tests channel: one line per test, the next written by the judge only after it read
// this one's report.
struct Reader {
  int fd = -1;
  std::string data;  // read from fd; the current test's line is data[begin, end)
  std::size_t begin = 0, at = 0, end = std::string::npos;

  // The next test's line, waiting for it; false at the end of the tests.
  bool next_line() {
    if (end != std::string::npos) begin = end + 1;
    if (begin == data.size()) {  // all read: the usual case, one test at a time
      data.clear();
      begin = 0;
    } else if (begin >= (1 << 16)) {  // lines handed over together: drop the ones answered
      data.erase(0, begin);
      begin = 0;
    }
    at = begin;
    std::size_t scanned = begin;
    for (;;) {
      end = data.find('\n', scanned);
      if (end != std::string::npos) return true;
      scanned = data.size();
      char buffer[1 << 16];
      ssize_t n = sys_read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data.append(buffer, static_cast<std::size_t>(n));
    }
  }

  // A 64-bit int; anything else on the line ends the process.
  long long number() {
    while (at < end && (data[at] == ' ' || data[at] == '\r' || data[at] == '\t')) ++at;
    bool negative = at < end && data[at] == '-';
    if (negative) ++at;
    if (at >= end || data[at] < '0' || data[at] > '9') refuse_test_line();
    unsigned long long magnitude = 0;
    const unsigned long long most = negative ? 1ULL << 63 : (1ULL << 63) - 1;
    while (at < end && data[at] >= '0' && data[at] <= '9') {
      unsigned digit = static_cast<unsigned>(data[at++] - '0');
      if (magnitude > (most - digit) / 10) refuse_test_line();
      magnitude = magnitude * 10 + digit;
    }
    return negative ? static_cast<long long>(0ULL - magnitude) : static_cast<long long>(magnitude);
  }

  // A str: its size in bytes, one space, the bytes (within the line).
  const char* text(long long& size) {
    size = number();
    if (size < 0 || at >= end || data[at] != ' ' ||
        static_cast<unsigned long long>(size) > end - at - 1)
      refuse_test_line();
    const char* begin_of_text = data.data() + at + 1;
    at += 1 + static_cast<std::size_t>(size);
    return begin_of_text;
  }
};

Reader reader;

long long next_number() { return reader.number(); }

const char* next_text(long long& size) { return reader.text(size); }

long text_chars(const char* data, std::size_t size) {
  long chars = 0;
  for (std::size_t i = 0; i < size; ++chars) {
    unsigned char c = static_cast<unsigned char>(data[i]);
    std::size_t len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (len == 0 || c > 0xf4 || i + len > size || c < 0x20 || c == 0x7f) return -1;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(data[i + k]) & 0xc0) != 0x80) return -1;
    unsigned char d = len > 1 ? static_cast<unsigned char>(data[i + 1]) : 0;
    if (len == 2 && c == 0xc2 && d < 0xa0) return -1;  // C1 controls, U+0080..U+009F
    if (len == 3 && ((c == 0xe0 && d < 0xa0) || (c == 0xed && d >= 0xa0))) return -1;
    if (len == 4 && ((c == 0xf0 && d < 0x90) || (c == 0xf4 && d >= 0x90))) return -1;
    i += len;
  }
  return chars <= kMaxStr ? chars : -1;
}

// ---- reporting -------------------------------------------------------------------------

int results_fd = -1;

void emit(const std::string& line) {
  std::string text = line + "\n";
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = sys_write(results_fd, p, left);
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

// What a call prints on one fd. For the whole run the fd is a pipe read by one thread that
// passes everything on to the real fd, so the sandbox's output limit still ends a flood (OLE),
// and keeps the first kOutputLimit bytes of the current call. A call's end is a random mark the
// driver writes into the pipe after it: everything the call wrote comes before it (a child it
// forked may write later: counted in a later call, never waited for). Without the thread
// nothing is captured (a full pipe nobody reads would block the call).
struct Capture {
  int fd = -1, saved = -1, read_end = -1, write_end = -1;
  bool running = false;
  std::string mark;
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t marked_cond = PTHREAD_COND_INITIALIZER;
  bool marked = false;
  std::string kept;  // this call's, under `lock`
  bool cut = false;

  void pass(const char* p, std::size_t n) {
    pthread_mutex_lock(&lock);
    std::size_t room = kOutputLimit - kept.size();
    if (n > room) cut = true;
    kept.append(p, std::min(room, n));
    pthread_mutex_unlock(&lock);
    while (n > 0) {
      ssize_t w = sys_write(saved, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  }

  static void* pump(void* self_) {
    auto* self = static_cast<Capture*>(self_);
    std::string pending;
    char buffer[1 << 14];
    for (;;) {
      ssize_t n = sys_read(self->read_end, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      pending.append(buffer, static_cast<std::size_t>(n));
      std::size_t at;
      while ((at = pending.find(self->mark)) != std::string::npos) {
        self->pass(pending.data(), at);
        pending.erase(0, at + self->mark.size());
        pthread_mutex_lock(&self->lock);
        self->marked = true;
        pthread_cond_signal(&self->marked_cond);
        pthread_mutex_unlock(&self->lock);
      }
      // Keep what could be the start of a mark; pass the rest on.
      std::size_t keep = std::min(pending.size(), self->mark.size() - 1);
      self->pass(pending.data(), pending.size() - keep);
      pending.erase(0, pending.size() - keep);
    }
    return nullptr;
  }

  void open(int which, const std::string& token) {
    fd = which;
    mark = token;
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return;
    read_end = ends[0];
    write_end = ends[1];
    saved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    running = saved >= 0 && pthread_create(&pump_thread, nullptr, &Capture::pump, this) == 0;
  }

  pthread_t pump_thread{};

  void begin() {
    pthread_mutex_lock(&lock);
    kept.clear();
    cut = marked = false;
    pthread_mutex_unlock(&lock);
    if (running) dup2(write_end, fd);
  }

  // What the call printed; `was_cut` when it printed more than kOutputLimit bytes.
  std::string end(bool& was_cut) {
    if (!running) return "";
    dup2(saved, fd);
    const char* p = mark.data();
    std::size_t n = mark.size();
    while (n > 0) {
      ssize_t w = sys_write(write_end, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return "";
      p += w;
      n -= static_cast<std::size_t>(w);
    }
    pthread_mutex_lock(&lock);
    while (!marked) pthread_cond_wait(&marked_cond, &lock);
    std::string text = kept;
    was_cut = was_cut || cut;
    pthread_mutex_unlock(&lock);
    return text;
  }
};

std::string random_mark() {
  unsigned char bytes[16] = {};
  if (FILE* f = std::fopen("/dev/urandom", "rb")) {
    if (std::fread(bytes, 1, sizeof bytes, f) != sizeof bytes) bytes[0] ^= 1;
    std::fclose(f);
  }
  std::string mark = "\x1b[judge-end-";
  static const char hex[] = "0123456789abcdef";
  for (unsigned char b : bytes) {
    mark += hex[b >> 4];
    mark += hex[b & 15];
  }
  return mark + "]";
}

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

int run(int argc, char** argv) {
  long long start = 0;
  bool capture = false;
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    if (arg == "--results-fd" && k + 1 < argc) results_fd = std::atoi(argv[++k]);
    else if (arg == "--tests-fd" && k + 1 < argc) reader.fd = std::atoi(argv[++k]);
    else if (arg == "--start" && k + 1 < argc) start = std::atoll(argv[++k]);
    else if (arg == "--output") capture = true;
  }
  if (results_fd < 0 || reader.fd < 0) return 64;
  static Capture& out = *new Capture;  // never destroyed: its thread runs to the exit
  static Capture& err = *new Capture;
  if (capture) {
    std::string mark = random_mark();
    out.open(1, mark);
    err.open(2, mark);
  }
  emit("{\"event\":\"ready\"}");
  for (long long index = start; reader.next_line(); ++index) {
    load_test();
    if (capture) {
      std::fflush(stdout);
      std::fflush(stderr);
      std::cout.flush();
      out.begin();
      err.begin();
    }
    std::string report;
    double cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID), wall0 = seconds(CLOCK_MONOTONIC);
    try {
      Text answer;
      call_test(answer);
      report = "{\"event\":\"result\",\"i\":" + std::to_string(index) + ",\"answer\":" +
               std::string(answer.begin(), answer.end());
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
      bool cut = false;
      std::string out_text = out.end(cut), err_text = err.end(cut);
      std::string stdout_json = fitted(out_text, cut), stderr_json = fitted(err_text, cut);
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
static Args judge_test;
void load_test() {
  judge_test = Args();
  read(judge_test);
}
void call_test(Text& judge_out) { call_with(judge_glue_::Call{}, judge_test, judge_out); }
}  // namespace judge_rt_
"""
