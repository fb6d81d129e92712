// Keyword-based tokenizers for the brace languages the judge takes: C++, Java and Kotlin.
// Like the Python one (highlight.js) they scan left to right with sticky regular expressions
// and emit anything unknown as plain text, so the tokens always concatenate to the input.

const words = (text) => new Set(text.split(/\s+/).filter(Boolean));

const CPP = {
  keywords: words(`alignas alignof and asm auto bitand bitor break case catch class compl
    concept const consteval constexpr constinit const_cast continue co_await co_return
    co_yield decltype default delete do dynamic_cast else enum explicit export extern for
    friend goto if inline mutable namespace new noexcept not operator or private protected
    public register reinterpret_cast requires return sizeof static static_assert static_cast
    struct switch template this thread_local throw try typedef typeid typename union using
    virtual volatile while xor override final`),
  constants: words("true false nullptr NULL"),
  types: words(`bool char char8_t char16_t char32_t double float int long short signed
    unsigned void wchar_t size_t int64_t int32_t uint64_t uint32_t string vector pair map
    set unordered_map unordered_set array deque queue stack priority_queue tuple bitset
    std cin cout cerr endl min max swap sort abs memset`),
  declarers: words("class struct enum union namespace"),
  functionDeclarers: words(""),
  preprocessor: true,
  rawStrings: /R"([^()\\\s]{0,16})\([\s\S]*?\)\1"/y,
};

const JAVA = {
  keywords: words(`abstract assert break case catch class const continue default do else enum
    extends final finally for goto if implements import instanceof interface native new
    package private protected public return static strictfp super switch synchronized this
    throw throws transient try volatile while var record sealed permits yield`),
  constants: words("true false null"),
  types: words(`boolean byte char double float int long short void String Integer Long
    Boolean Character Double Object Math System List ArrayList Map HashMap Set HashSet
    Arrays Collections Deque ArrayDeque Scanner BufferedReader InputStreamReader
    StringBuilder StringTokenizer`),
  declarers: words("class interface enum record extends implements new"),
  functionDeclarers: words(""),
  annotations: true,
};

const KOTLIN = {
  keywords: words(`as break class continue do else for fun if in interface is null object
    package return super this throw try typealias val var when while by catch constructor
    companion data enum finally get import init inner internal lateinit open operator out
    override private protected public sealed set suspend tailrec vararg abstract const
    crossinline infix inline noinline reified annotation value`),
  constants: words("true false null"),
  types: words(`Int Long Short Byte Double Float Boolean Char String Unit Any Nothing Array
    IntArray LongArray BooleanArray CharArray List MutableList Map MutableMap Set MutableSet
    Pair Triple HashMap ArrayList maxOf minOf listOf mutableListOf arrayOf intArrayOf
    println readLine readln`),
  declarers: words("class interface object"),
  functionDeclarers: words("fun"),
  annotations: true,
  tripleStrings: true,
};

const SPECS = { cpp: CPP, java: JAVA, kotlin: KOTLIN };

const NEXT_CHAR = /[ \t]*(\S?)/y;

function rulesFor(spec) {
  const rules = [
    ["comment", /\/\/[^\n]*/y],
    ["comment", /\/\*[\s\S]*?(?:\*\/|$(?![\s\S]))/y],
  ];
  if (spec.preprocessor) rules.push(["decorator", /#[ \t]*[A-Za-z_]\w*(?:[ \t]*<[^>\n]*>)?/y]);
  if (spec.rawStrings) rules.push(["string", spec.rawStrings]);
  if (spec.tripleStrings) rules.push(["string", /"""[\s\S]*?(?:"""|$(?![\s\S]))/y]);
  rules.push(
    // An unterminated string or character stops at the end of its line.
    ["string", /(?:u8|[uUL])?"(?:\\[\s\S]|[^"\\\n])*(?:"|(?=\n)|$)/y],
    ["string", /(?:[uUL])?'(?:\\[\s\S]|[^'\\\n])*(?:'|(?=\n)|$)/y],
    ["number", /(?:0[xX][0-9a-fA-F_']+|0[bB][01_']+|(?:\d[\d_']*(?:\.[\d_']*)?|\.\d[\d_']*)(?:[eE][+-]?\d[\d_']*)?)[uUlLfFdD]*(?![\w])/y],
  );
  if (spec.annotations) rules.push(["decorator", /@[A-Za-z_][\w.]*/y]);
  rules.push(
    ["name", /[A-Za-z_$\u00C0-\uFFFF][\w$\u00C0-\uFFFF]*/y],
    ["space", /\s+/y],
    ["op", /[-+*/%=<>!&|^~:.,;?()[\]{}@#]/y],
    ["other", /[\s\S]/y],
  );
  return rules;
}

const RULES = Object.fromEntries(Object.entries(SPECS).map(([name, spec]) => [name, rulesFor(spec)]));

export function isBraceLanguage(mode) {
  return Object.hasOwn(SPECS, mode);
}

// -> [{type, text}] for `mode` ("cpp", "java" or "kotlin"); the texts concatenate to the input.
export function tokenizeBraces(text, mode) {
  const spec = SPECS[mode];
  const rules = RULES[mode];
  const tokens = [];
  let pos = 0;
  let previousName = "";
  while (pos < text.length) {
    for (const [type, regex] of rules) {
      regex.lastIndex = pos;
      const match = regex.exec(text);
      if (!match || match[0].length === 0) continue;
      const value = match[0];
      let kind = type;
      if (type === "name") {
        NEXT_CHAR.lastIndex = pos + value.length;
        const nextChar = NEXT_CHAR.exec(text)[1];
        if (spec.declarers.has(previousName) && !spec.keywords.has(value)) kind = "class";
        else if (spec.functionDeclarers.has(previousName)) kind = "function";
        else if (spec.constants.has(value)) kind = "constant";
        else if (spec.keywords.has(value)) kind = "keyword";
        else if (spec.types.has(value)) kind = "builtin";
        else if (nextChar === "(") kind = "call";
        previousName = value;
      } else if (type !== "space" && type !== "comment") {
        previousName = "";
      }
      tokens.push({ type: kind, text: value });
      pos += value.length;
      break;
    }
  }
  return tokens;
}
