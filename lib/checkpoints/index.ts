/** Checkpoints of the workspace in a git store of minicode's own, and undo. */
export { checkpointSettingsOf, CheckpointConfigSchema, DEFAULT_CHECKPOINT_LIMITS, resolveCheckpointsHome, type CheckpointLimits, type CheckpointSettings } from './settings.js';
export { createTurnCheckpoints, type TurnCheckpointOptions, type WorkspaceCheckpoints } from './turn.js';
export { listCheckpoints, undoWorkspace, type CheckpointListing, type UndoOptions, type UndoReport } from './undo.js';
