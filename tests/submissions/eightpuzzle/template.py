"""Eight puzzle: solve a shuffled board with the A* search.

A state is a list of nine ints read row by row from the top-left corner;
0 is the blank square. The goal is ``[1, 2, 3, 4, 5, 6, 7, 8, 0]``:

    1 2 3
    4 5 6
    7 8 .

A move slides one tile next to the blank (left, right, above or below it)
into the blank.

Your task: write ``Astar(self, state)`` following the A* pseudocode of the
exercise sheet.

Contract of ``Astar(self, state)``:
- return the solution as a list of states: ``state`` first, the goal last,
  each state one move from the previous one (``len(path) - 1`` moves in all);
  ``self.ReconstructPath(camefrom, current)`` builds exactly this list;
- the solution must be as short as possible;
- return None if the goal cannot be reached from ``state`` (half of all
  arrangements of the tiles cannot reach it);
- use a heuristic (``self.Manhattan`` or ``self.Hamming``); every call of
  ``FindNextStates`` counts as one expansion, and the grader compares your
  count with that of a search without a heuristic;
- do not change the other methods' names or what they return.
"""
import random


class EightPuzzle:
    def __init__(self):
        # The goal: tiles 1-8 in reading order, the blank last.
        self.targetstate = [1, 2, 3, 4, 5, 6, 7, 8, 0]

    def PrintState(self, state):
        """Print the state as three rows of digits, followed by an empty line."""
        for row in range(3):
            print("".join(str(tile) for tile in state[3 * row:3 * row + 3]))
        print("")

    def LegalMoves(self, position):
        """The offsets, taken from [1, -1, 3, -3], the blank at index ``position`` may move by.

        +1 and -1 move the blank right and left, +3 and -3 down and up.
        """
        legalmoves = []
        for move in [1, -1, 3, -3]:
            if not 0 <= position + move < 9:
                continue
            if move == 1 and position % 3 == 2:
                continue
            if move == -1 and position % 3 == 0:
                continue
            legalmoves.append(move)
        return legalmoves

    def FindNextStates(self, state):
        """The states one move away from ``state``, each a new list (``state`` is unchanged)."""
        blank = state.index(0)
        nextstates = []
        for move in self.LegalMoves(blank):
            nextstate = state[:]
            nextstate[blank], nextstate[blank + move] = nextstate[blank + move], nextstate[blank]
            nextstates.append(nextstate)
        return nextstates

    def DrawState(self, state):
        """A random state one move away from ``state`` (used for shuffling)."""
        return random.choice(self.FindNextStates(state))

    def InitialState(self, shuffles=200):
        """The goal shuffled with ``shuffles`` random moves (so always solvable)."""
        state = self.targetstate[:]
        for _ in range(shuffles):
            state = self.DrawState(state)
        return state

    def GameSolved(self, state):
        """True if ``state`` is the goal."""
        return state == self.targetstate

    def Manhattan(self, state):
        """Manhattan distance: for every tile (not the blank), the rows plus the columns
        between its square and its goal square, summed over the tiles."""
        distance = 0
        for position, tile in enumerate(state):
            if tile != 0:
                goal = self.targetstate.index(tile)
                distance += abs(position // 3 - goal // 3) + abs(position % 3 - goal % 3)
        return distance

    def Hamming(self, state):
        """Hamming distance: the number of tiles (not the blank) away from their goal square."""
        return sum(1 for tile, goal in zip(state, self.targetstate) if tile != 0 and tile != goal)

    def GetLowestF(self, openlist, fscore):
        """The state in ``openlist`` with the lowest f score (the first such state on ties).

        ``fscore`` is keyed by ``ListToString(state)``. The scan is linear; a heap
        (module ``heapq``) is faster if you want one.
        """
        lowest = None
        for state in openlist:
            if lowest is None or fscore[self.ListToString(state)] < fscore[self.ListToString(lowest)]:
                lowest = state
        return lowest

    def ListToString(self, state):
        """The state as a string such as "123456780", usable as a dictionary key or set member."""
        return "".join(str(tile) for tile in state)

    def ReconstructPath(self, camefrom, current):
        """The path from the start state to ``current``, printed and returned.

        ``camefrom`` maps ``ListToString(state)`` to the state it was reached from.
        The returned list begins with the start state and ends with ``current``.
        """
        totalpath = [current]
        while self.ListToString(current) in camefrom:
            current = camefrom[self.ListToString(current)]
            totalpath.append(current)
        totalpath.reverse()
        for pathstate in totalpath:
            self.PrintState(pathstate)
        print("Used total {} moves".format(len(totalpath) - 1))
        return totalpath

    def Astar(self, state):
        """Solve the puzzle from ``state`` with A*; see the module docstring for the contract.

        The bookkeeping of the sheet's pseudocode is set up for you: the open
        and closed lists, gscore (moves from the start) and fscore (gscore plus
        the heuristic), and camefrom for rebuilding the path. The dictionaries
        are keyed by ``ListToString(state)``.
        """
        camefrom = {}
        openlist = []
        closedlist = []
        gscore = {}
        fscore = {}
        openlist.append(state)
        gscore[self.ListToString(state)] = 0
        fscore[self.ListToString(state)] = gscore[self.ListToString(state)] + self.Manhattan(state)
        # ------------------------------------------------------------------
        # Your code here: the A* loop of the exercise sheet. When the goal is
        # taken from the open list, return self.ReconstructPath(camefrom, current).
        # ------------------------------------------------------------------
        return None


def main():
    print("8-Puzzle Solver!")
    print(15 * "-")
    game = EightPuzzle()
    initialstate = game.InitialState(50)
    print("The starting state is:")
    game.PrintState(initialstate)
    print("The target state will be:")
    game.PrintState(game.targetstate)
    print("The path of solution:")
    game.Astar(initialstate)


if __name__ == "__main__":
    main()
