"""Classic bug (a heuristic that overestimates): the search weighs the Manhattan distance
twice (f = g + 2h), faster but no longer sure to find a shortest path.
"""
import heapq
import itertools
import random


class EightPuzzle:
    def __init__(self):
        self.targetstate = [1, 2, 3, 4, 5, 6, 7, 8, 0]

    def PrintState(self, state):
        """Print the state as three rows of digits, followed by an empty line."""
        for row in range(3):
            print("".join(str(tile) for tile in state[3 * row:3 * row + 3]))
        print("")

    def LegalMoves(self, position):
        """Offsets from [1, -1, 3, -3] the blank at ``position`` may move by."""
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
        """Every state one slide away from ``state``, each a new list."""
        blank = state.index(0)
        nextstates = []
        for move in self.LegalMoves(blank):
            nextstate = state[:]
            nextstate[blank], nextstate[blank + move] = nextstate[blank + move], nextstate[blank]
            nextstates.append(nextstate)
        return nextstates

    def DrawState(self, state):
        """A random state one slide away (used for shuffling)."""
        return random.choice(self.FindNextStates(state))

    def InitialState(self, shuffles=200):
        """The goal shuffled by ``shuffles`` random slides."""
        state = self.targetstate[:]
        for _ in range(shuffles):
            state = self.DrawState(state)
        return state

    def GameSolved(self, state):
        return state == self.targetstate

    def Solvable(self, state):
        """True if the goal is reachable: the tiles show an even number of inversions."""
        tiles = [tile for tile in state if tile != 0]
        inversions = sum(1 for i in range(8) for j in range(i + 1, 8) if tiles[i] > tiles[j])
        return inversions % 2 == 0

    def Manhattan(self, state):
        """Sum over tiles of the rows and columns between the tile and its goal square."""
        distance = 0
        for position, tile in enumerate(state):
            if tile != 0:
                goal = self.targetstate.index(tile)
                distance += abs(position // 3 - goal // 3) + abs(position % 3 - goal % 3)
        return distance

    def Hamming(self, state):
        """Number of tiles (the blank left out) not on their goal square."""
        return sum(1 for tile, goal in zip(state, self.targetstate) if tile != 0 and tile != goal)

    def GetLowestF(self, openlist, fscore):
        """The state in ``openlist`` with the lowest fScore (first one on ties)."""
        return min(openlist, key=lambda state: fscore[self.ListToString(state)])

    def ListToString(self, state):
        return "".join(str(tile) for tile in state)

    def ReconstructPath(self, camefrom, current):
        """reconstruct_path(cameFrom, current) of the sheet, reversed to run start -> goal.

        Prints every state and the number of moves, and returns the path.
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
        """A* of the sheet (seed 004); see the module docstring for the contract."""
        camefrom = {}
        openlist = []
        closedlist = set()
        gscore = {}
        fscore = {}
        start = self.ListToString(state)
        gscore[start] = 0
        fscore[start] = gscore[start] + self.Manhattan(state)
        if not self.Solvable(state):
            return None
        order = itertools.count()
        heapq.heappush(openlist, (fscore[start], next(order), state))
        while openlist:
            _, _, current = heapq.heappop(openlist)
            key = self.ListToString(current)
            if key in closedlist:
                continue
            if self.GameSolved(current):
                return self.ReconstructPath(camefrom, current)
            closedlist.add(key)
            for neighbor in self.FindNextStates(current):
                neighborkey = self.ListToString(neighbor)
                if neighborkey in closedlist:
                    continue
                tentative_gscore = gscore[key] + 1
                if tentative_gscore >= gscore.get(neighborkey, float("inf")):
                    continue
                camefrom[neighborkey] = current
                gscore[neighborkey] = tentative_gscore
                fscore[neighborkey] = gscore[neighborkey] + 2 * self.Manhattan(neighbor)
                heapq.heappush(openlist, (fscore[neighborkey], next(order), neighbor))
        return None


def main():
    game = EightPuzzle()
    initialstate = game.InitialState(50)
    print("The starting state is:")
    game.PrintState(initialstate)
    print("The path of solution:")
    game.Astar(initialstate)


if __name__ == "__main__":
    main()
