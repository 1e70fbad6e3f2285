static inline int helper(int i) { return i & 1 ? i : -i; }
