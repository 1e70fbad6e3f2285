// Only implicit members in this header: clang compiles Collect's
// constructor and destructors with the class's line but with no line of
// their own, so this file has functions and no lines (lcov drops it).
#include <string>
#include <vector>

struct Handler {
    virtual ~Handler();
    virtual void on(int v) = 0;
};

struct Collect : Handler {
    void on(int v) override;
    std::vector<std::string> seen;
};
