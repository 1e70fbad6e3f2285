static inline int gone_inline(int v) { return v * 3; }
