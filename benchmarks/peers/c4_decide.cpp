// Side-by-side driver for benchmarks/c4_decisions.py: for each line of stdin (a column string,
// columns from 1), what a perfect player needs to choose its move, by c4's Solver, one Solver
// (one table) for all lines, as a player process keeps its table. Modes: "weak" solve_weak of
// every child, "strong" solve_strong of every child; "weak2"/"strong2" the position's own score,
// then one null-window solve a child (does the move keep that score? 99 a win at once, -99 a
// move that does not keep it). Prints one JSON line a position with the seconds taken.
#include <chrono>
#include <iostream>
#include <string>
#include "solver/position.h"
#include "solver/solver.h"

int main(int argc, char **argv) {
    std::string mode = argc > 1 ? argv[1] : "weak";
    bool strong = mode == "strong" || mode == "strong2";
    // "weak2"/"strong2": the position's own score first, then one null-window test a move
    // (does it keep that score?), as qarena's Searcher.best_moves; "weak"/"strong": every
    // move's score (weak: its sign), as qarena's move_scores.
    bool tests = mode == "weak2" || mode == "strong2";
    Solver solver{};
    for (std::string moves; std::getline(std::cin, moves);) {
        Position pos{};
        for (char ch : moves) pos.move(ch - '1');
        auto t0 = std::chrono::steady_clock::now();
        std::string out;
        int best = 0;
        if (tests) {
            best = strong ? solver.solve_strong(pos) : solver.solve_weak(pos);
            out = "\"score\": " + std::to_string(best);
        }
        for (int col = 0; col < 7; col++) {
            if (!pos.is_move_valid(col)) continue;
            Position child = pos;
            child.move(col);
            int s;
            if (child.has_opponent_won()) s = 99;
            else if (tests) {
                if (!strong && best < 0) s = -1;  // a lost position: every move keeps it
                else s = -solver.solve(child, -best, -best + 1) >= best ? best : -99;
            }
            else s = -(strong ? solver.solve_strong(child) : solver.solve_weak(child));
            out += (out.empty() ? "" : ", ") + std::string("\"") + char('1' + col) + "\": " + std::to_string(s);
        }
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::cout << "{\"moves\": \"" << moves << "\", \"seconds\": " << secs << ", \"scores\": {" << out << "}}" << std::endl;
    }
    return 0;
}
