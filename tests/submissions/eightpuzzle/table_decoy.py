# -*- coding: utf-8 -*-
import random
import time


class EightPuzzle:
    def __init__(self):
        # The solved board: tiles 1-8 in reading order and the blank (0) last
        self.targetstate = [1, 2, 3, 4, 5, 6, 7, 8, 0]

    def PrintState(self, state):
        # Prints the state as a 3x3 grid
        for (index, value) in enumerate(state):
            print(value, end="")
            if index % 3 == 2:
                print("")
        print("")

    def LegalMoves(self, position):
        # Offsets the blank at the given position may move by
        legalmoves = []
        for x in [1, -1, 3, -3]:
            if 0 <= position + x < 9:
                if x == 1 and position in (2, 5, 8):
                    continue
                if x == -1 and position in (0, 3, 6):
                    continue
                legalmoves.append(x)
        return legalmoves

    def DrawState(self, state):
        # Picks one of the next states at random (used when shuffling)
        return random.choice(self.FindNextStates(state))

    def InitialState(self, shuffles=200):
        # Shuffles the target state with the given number of random moves
        initialstate = self.targetstate[:]
        for i in range(shuffles):
            initialstate = self.DrawState(initialstate)
        return initialstate

    def GameSolved(self, state):
        # Checks whether the puzzle is solved
        return state == self.targetstate

    def Manhattan(self, state):
        # Manhattan distance: horizontal and vertical moves each tile needs to reach its place
        # (fixed: compare rows and columns separately)
        manhattanvalue = 0
        for number in state:
            if number != 0:
                (row, col) = divmod(state.index(number), 3)
                (targetrow, targetcol) = divmod(self.targetstate.index(number), 3)
                manhattanvalue += abs(row - targetrow) + abs(col - targetcol)
        return manhattanvalue

    def Hamming(self, state):
        # Number of tiles that are not in their place (the blank is not counted)
        hamming = 0
        for i in range(9):
            if state[i] != 0 and state[i] != self.targetstate[i]:
                hamming += 1
        return hamming

    def GetLowestF(self, openlist, fscore):
        # Returns the state of the open list with the lowest f-score
        value = 10000000000
        for state in openlist:
            if fscore[self.ListToString(state)] < value:
                value = fscore[self.ListToString(state)]
                current = state
        return current

    def ListToString(self, numberlist):
        # Turns the list into a string (used as a dictionary key)
        return ''.join(list(map(str, numberlist)))

    def ReconstructPath(self, camefrom, current):
        # Builds the path from the initial state to the target state and prints it
        totalpath = []
        current = self.targetstate
        while self.ListToString(current) in list(camefrom.keys()):
            current = camefrom[self.ListToString(current)]
            totalpath.append(current)
        totalpath.reverse()
        totalpath.append(self.targetstate)
        for i in totalpath:
            self.PrintState(i)
        print("Used total {} moves".format(len(totalpath) - 1))

    def Astar(self, state):
        # Every start answered from the table of distances built when the module is loaded,
        # walked down one move closer to the goal at a time.  For show, FindNextStates is
        # called on every state of the path and on one neighbour off it (never one expanded
        # before), and each call burns CPU time, so the counts go beyond the path and the
        # time follows them.
        if tuple(state) not in DISTANCE:
            return None
        path = [list(state)]
        while DISTANCE[tuple(path[-1])]:
            here = DISTANCE[tuple(path[-1])]
            nextstates = self.FindNextStates(path[-1])
            decoy = next((n for n in nextstates if DISTANCE.get(tuple(n)) != here - 1
                          and n not in path), None)
            if decoy is not None:
                self.FindNextStates(decoy)
            path.append(next(n for n in nextstates if DISTANCE.get(tuple(n)) == here - 1))
        return path

    def FindNextStates(self, state):
        # Returns the states that can be reached from this state with one move (after a
        # fifth of a millisecond of busy work, the CPU time of an expansion and more)
        until = time.process_time() + BURN
        while time.process_time() < until:
            pass
        emptyspace = state.index(0)
        nextstates = []
        for move in self.LegalMoves(emptyspace):
            newstate = state[:]
            newstate[emptyspace], newstate[emptyspace + move] = newstate[emptyspace + move], newstate[emptyspace]
            nextstates.append(newstate)
        return nextstates


def _distances(farthest=31):
    """Moves to the goal of every state at most ``farthest`` moves away (31 is every solvable
    state): breadth-first search from the goal, a level at a time."""
    goal = (1, 2, 3, 4, 5, 6, 7, 8, 0)
    # the squares the blank can move to from each square
    targets = [[t for t in (b - 3, b + 3, b - 1, b + 1)
                if 0 <= t < 9 and (t // 3 == b // 3 or t % 3 == b % 3)] for b in range(9)]
    distance = {goal: 0}
    level, moves = [goal], 0
    while level and moves < farthest:
        moves += 1
        following = []
        for current in level:
            blank = current.index(0)
            for target in targets[blank]:
                nextstate = list(current)
                nextstate[blank], nextstate[target] = nextstate[target], 0
                nextstate = tuple(nextstate)
                if nextstate not in distance:
                    distance[nextstate] = moves
                    following.append(nextstate)
        level = following
    return distance

DISTANCE = _distances()

BURN = 0.0002
"""CPU seconds burnt in each call of FindNextStates."""


def main():
    print('8-Puzzle Solver!')
    print(15 * '-')
    game = EightPuzzle()
    print('The starting state is:')
    initialstate = game.InitialState(50)
    game.PrintState(initialstate)
    print('The target state will be:')
    game.PrintState(game.targetstate)
    print('The path of solution:')
    game.Astar(initialstate)


if __name__ == '__main__':
    main()
